//! A sweep's tables in memory, and on disk as CSV (for eyes, spreadsheets
//! and `csv` modules) and as Parquet (typed columns for pandas, polars,
//! DuckDB or Arrow; written with the arrow/parquet crates). The Python
//! package hands the same columns to pandas, so the three views of a
//! sweep cannot drift apart.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema};

/// One column's values; `None` is a missing value (a metric a run did not
/// have, a CI of a single seed), an empty CSV cell and a Parquet null.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    UInt(Vec<u64>),
    Float(Vec<Option<f64>>),
    Text(Vec<Option<String>>),
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::UInt(v) => v.len(),
            Column::Float(v) => v.len(),
            Column::Text(v) => v.len(),
        }
    }

    /// Moves `other`'s values to the end of this column (same kind).
    pub fn append(&mut self, other: &mut Column) {
        match (self, other) {
            (Column::UInt(a), Column::UInt(b)) => a.append(b),
            (Column::Float(a), Column::Float(b)) => a.append(b),
            (Column::Text(a), Column::Text(b)) => a.append(b),
            _ => {}
        }
    }

    /// Empties the column, keeping its kind.
    pub fn clear(&mut self) {
        match self {
            Column::UInt(v) => v.clear(),
            Column::Float(v) => v.clear(),
            Column::Text(v) => v.clear(),
        }
    }

    fn cell(&self, i: usize) -> String {
        match self {
            Column::UInt(v) => v[i].to_string(),
            Column::Float(v) => v[i].map_or(String::new(), |x| x.to_string()),
            Column::Text(v) => v[i].as_deref().map_or(String::new(), csv_field),
        }
    }
}

/// Named columns of one length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

/// A CSV field, quoted when it holds a comma, a quote or a line break
/// (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl Table {
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn to_csv(&self) -> String {
        let mut out = self
            .columns
            .iter()
            .map(|(n, _)| csv_field(n))
            .collect::<Vec<_>>()
            .join(",");
        out.push('\n');
        for i in 0..self.rows() {
            for (k, (_, c)) in self.columns.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}", c.cell(i));
            }
            out.push('\n');
        }
        out
    }

    /// The table as one Arrow record batch: u64, f64 and UTF-8 columns,
    /// nullable where a value can be missing.
    pub fn to_arrow(&self) -> Result<RecordBatch, String> {
        let mut fields = Vec::with_capacity(self.columns.len());
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.columns.len());
        for (name, c) in &self.columns {
            let (t, a): (DataType, ArrayRef) = match c {
                Column::UInt(v) => (DataType::UInt64, Arc::new(UInt64Array::from(v.clone()))),
                Column::Float(v) => (DataType::Float64, Arc::new(Float64Array::from(v.clone()))),
                Column::Text(v) => (DataType::Utf8, Arc::new(StringArray::from(v.clone()))),
            };
            fields.push(Field::new(name, t, !matches!(c, Column::UInt(_))));
            arrays.push(a);
        }
        RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(|e| e.to_string())
    }

    pub fn write_csv(&self, path: &Path) -> Result<(), String> {
        fs::write(path, self.to_csv()).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    pub fn write_parquet(&self, path: &Path) -> Result<(), String> {
        let cannot = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
        let batch = self.to_arrow()?;
        let file = fs::File::create(path).map_err(|e| cannot(&e))?;
        let mut w = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None)
            .map_err(|e| cannot(&e))?;
        w.write(&batch).map_err(|e| cannot(&e))?;
        w.close().map_err(|e| cannot(&e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    fn sample() -> Table {
        Table {
            columns: vec![
                ("point".into(), Column::UInt(vec![0, 1])),
                (
                    "flow.a,b".into(),
                    Column::Text(vec![Some("x\"y".into()), None]),
                ),
                ("m".into(), Column::Float(vec![Some(0.5), None])),
            ],
        }
    }

    #[test]
    fn csv_quotes_and_leaves_missing_cells_empty() {
        assert_eq!(
            sample().to_csv(),
            "point,\"flow.a,b\",m\n0,\"x\"\"y\",0.5\n1,,\n"
        );
    }

    #[test]
    fn parquet_reads_back_with_types_and_nulls() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.parquet");
        let t = sample();
        t.write_parquet(&p).unwrap();
        let r = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(&p).unwrap())
            .unwrap()
            .build()
            .unwrap();
        let batches: Vec<RecordBatch> = r.map(|b| b.unwrap()).collect();
        assert_eq!(batches.len(), 1);
        assert_eq!(batches[0], t.to_arrow().unwrap());
        assert_eq!(batches[0].schema().field(0).data_type(), &DataType::UInt64);
        assert_eq!(batches[0].column(2).null_count(), 1);
    }
}
