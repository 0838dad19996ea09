//! Python data as TOML text, without Python. `losslab.run` and
//! `losslab.sweep` take a scenario or a sweep as a dict shaped like the
//! TOML; the Python package (crates/losslab-py) walks the Python objects
//! into a [`Data`] tree and [`to_toml`] writes the tree.
//!
//! The work is split there because each half sees different things. Only
//! the Python side sees object identity (a dict that holds itself) and
//! Python types (None, sets, non-string keys), so it refuses those and
//! stops at [`MAX_DEPTH`] while walking. This half sees only the tree,
//! which may come from anywhere (a fuzzer's included): it refuses what
//! TOML or losslab cannot take (non-finite floats, a key given twice, a
//! tree deeper than [`MAX_DEPTH`], a top level that is not a dict) with
//! an error naming the key path, and never panics or recurses deeper than
//! [`MAX_DEPTH`].

use toml_edit::{Array, DocumentMut, InlineTable, Item, Value};

/// Lists and dicts nested deeper than this are refused, the top-level
/// dict counting as level 1. Scenarios and sweeps nest four or five
/// levels (`flow[0].app.pages`); the limit keeps the recursion of both
/// halves of the conversion, and of whatever reads the TOML, far from
/// the end of a thread's stack.
pub const MAX_DEPTH: usize = 64;

/// A Python value as TOML can hold it.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Str(String),
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A list or tuple.
    List(Vec<Data>),
    /// A dict, keys in its order: a sweep's first axis is its plots' x
    /// axis.
    Dict(Vec<(String, Data)>),
}

/// A tree is dropped a node at a time: the derived drop would recurse
/// once per level, and a tree made without the Python side's limit (a
/// fuzzer's) can be deep enough to end the thread's stack.
impl Drop for Data {
    fn drop(&mut self) {
        let mut below = Vec::new();
        take_children(self, &mut below);
        while let Some(mut d) = below.pop() {
            take_children(&mut d, &mut below);
        }
    }
}

fn take_children(d: &mut Data, into: &mut Vec<Data>) {
    match d {
        Data::List(v) => into.append(v),
        Data::Dict(e) => into.extend(e.drain(..).map(|(_, v)| v)),
        _ => {}
    }
}

impl Data {
    /// What the value is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Data::Str(_) => "a string",
            Data::Bool(_) => "a bool",
            Data::Int(_) => "an integer",
            Data::Float(_) => "a float",
            Data::List(_) => "a list",
            Data::Dict(_) => "a dict",
        }
    }
}

/// `path` then the dict key `key`, as errors show it: `flow`, `path.loss`,
/// `axes."path.loss.p"` (a key that is not a bare TOML key is quoted).
pub fn push_key(path: &str, key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    };
    if path.is_empty() {
        key
    } else {
        format!("{path}.{key}")
    }
}

/// `path` then the list index `i`: `flow[0]`.
pub fn push_index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// Where an error is, for its message: the path, or "the top level".
pub fn at(path: &str) -> &str {
    if path.is_empty() {
        "the top level"
    } else {
        path
    }
}

/// The error for a list or dict at `depth` (the top-level dict is 1),
/// if that is too deep.
pub fn too_deep(path: &str, depth: usize) -> Option<String> {
    (depth > MAX_DEPTH).then(|| {
        format!(
            "{}: lists and dicts nested more than {MAX_DEPTH} levels deep; \
             losslab's scenarios and sweeps need a handful",
            at(path)
        )
    })
}

/// A scenario or sweep as TOML text: `data` must be a dict; its keys are
/// written in order, each value inline (`flow = [{ name = "a" }]`).
/// The error names the key path of the first value TOML cannot hold.
pub fn to_toml(data: &Data) -> Result<String, String> {
    let Data::Dict(entries) = data else {
        return Err(format!(
            "the top level must be a dict (a TOML table), not {}",
            data.kind()
        ));
    };
    unique_keys(entries, "")?;
    let mut doc = DocumentMut::new();
    for (k, v) in entries {
        let value = value_at(v, &push_key("", k), 2)?;
        doc.insert(k, Item::Value(value));
    }
    Ok(doc.to_string())
}

/// One value as TOML text (what `--set KEY=` takes), errors naming it
/// `path`.
pub fn value_to_toml(data: &Data, path: &str) -> Result<String, String> {
    Ok(value_at(data, path, 1)?.decorated("", "").to_string())
}

fn unique_keys(entries: &[(String, Data)], path: &str) -> Result<(), String> {
    let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    match keys.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(format!("{}: the key {:?} is given twice", at(path), w[0])),
        None => Ok(()),
    }
}

/// `data` at `path`, a list or dict there being at level `depth`.
fn value_at(data: &Data, path: &str, depth: usize) -> Result<Value, String> {
    Ok(match data {
        Data::Str(s) => Value::from(s.as_str()),
        Data::Bool(b) => Value::from(*b),
        Data::Int(i) => Value::from(*i),
        Data::Float(x) if x.is_finite() => Value::from(*x),
        Data::Float(x) => {
            return Err(format!(
                "{}: {x} is not a finite number (losslab takes none: give a number, \
                 or leave the key out for its default)",
                at(path)
            ))
        }
        Data::List(items) => {
            if let Some(e) = too_deep(path, depth) {
                return Err(e);
            }
            let mut a = Array::new();
            for (i, x) in items.iter().enumerate() {
                a.push(value_at(x, &push_index(path, i), depth + 1)?);
            }
            Value::Array(a)
        }
        Data::Dict(entries) => {
            if let Some(e) = too_deep(path, depth) {
                return Err(e);
            }
            unique_keys(entries, path)?;
            let mut t = InlineTable::new();
            for (k, x) in entries {
                t.insert(k, value_at(x, &push_key(path, k), depth + 1)?);
            }
            Value::InlineTable(t)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dict(entries: &[(&str, Data)]) -> Data {
        Data::Dict(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    /// A list nested `levels` deep under the key `deep`.
    fn nested(levels: usize) -> Data {
        let mut d = Data::Int(1);
        for _ in 0..levels {
            d = Data::List(vec![d]);
        }
        Data::Dict(vec![("deep".into(), d)])
    }

    #[test]
    fn a_scenario_dict_is_its_toml_in_order() {
        let d = dict(&[
            ("name", Data::Str("x".into())),
            ("duration", Data::Str("3s".into())),
            (
                "path",
                dict(&[
                    ("rate", Data::Str("10Mbps".into())),
                    ("loss", dict(&[("p", Data::Float(0.01))])),
                ]),
            ),
            (
                "flow",
                Data::List(vec![dict(&[
                    ("name", Data::Str("a".into())),
                    ("count", Data::Int(2)),
                    ("sack", Data::Bool(true)),
                ])]),
            ),
            ("axes", dict(&[("path.loss.p", Data::List(vec![]))])),
        ]);
        let text = to_toml(&d).unwrap();
        assert_eq!(
            text,
            "name = \"x\"\nduration = \"3s\"\npath = { rate = \"10Mbps\", loss = { p = 0.01 } }\n\
             flow = [{ name = \"a\", count = 2, sack = true }]\naxes = { \"path.loss.p\" = [] }\n"
        );
    }

    #[test]
    fn errors_name_the_key_path() {
        let d = dict(&[(
            "flow",
            Data::List(vec![dict(&[(
                "receiver",
                dict(&[("rcvbuf", Data::Float(f64::NAN))]),
            )])]),
        )]);
        let e = to_toml(&d).unwrap_err();
        assert!(
            e.starts_with("flow[0].receiver.rcvbuf: NaN is not a finite number"),
            "{e}"
        );
        let e = to_toml(&dict(&[(
            "axes",
            dict(&[("path.loss.p", Data::List(vec![Data::Float(f64::INFINITY)]))]),
        )]))
        .unwrap_err();
        assert!(e.starts_with("axes.\"path.loss.p\"[0]: inf "), "{e}");
        let twice = Data::Dict(vec![("a".into(), Data::Int(1)), ("a".into(), Data::Int(2))]);
        assert!(to_toml(&twice)
            .unwrap_err()
            .contains("\"a\" is given twice"));
        let inner = dict(&[("path", twice)]);
        assert!(to_toml(&inner)
            .unwrap_err()
            .starts_with("path: the key \"a\""));
        assert!(to_toml(&Data::List(vec![]))
            .unwrap_err()
            .contains("must be a dict"));
        assert_eq!(
            value_to_toml(&Data::Float(f64::NEG_INFINITY), "set.duration")
                .unwrap_err()
                .split(':')
                .next(),
            Some("set.duration")
        );
    }

    #[test]
    fn nesting_stops_at_max_depth() {
        // The top dict is level 1, so MAX_DEPTH - 1 lists fit under it.
        assert!(to_toml(&nested(MAX_DEPTH - 1)).is_ok());
        let e = to_toml(&nested(MAX_DEPTH)).unwrap_err();
        assert!(e.contains("more than 64 levels"), "{e}");
        assert!(e.starts_with(&format!("deep{}:", "[0]".repeat(MAX_DEPTH - 1))));
        // Far deeper: refused at the limit, without going down the rest.
        let deep = nested(100_000);
        assert!(to_toml(&deep).is_err());
        // Dropped without recursion (Drop above).
        drop(deep);
    }

    #[test]
    fn set_values_are_inline_toml() {
        assert_eq!(value_to_toml(&Data::Float(0.02), "set.p").unwrap(), "0.02");
        assert_eq!(
            value_to_toml(&Data::Str("prr".into()), "set.r").unwrap(),
            "\"prr\""
        );
        assert_eq!(
            value_to_toml(&Data::List(vec![Data::Int(1), Data::Int(2)]), "s").unwrap(),
            "[1, 2]"
        );
    }

    fn data(depth: u32) -> impl Strategy<Value = Data> {
        let leaf = prop_oneof![
            any::<String>().prop_map(Data::Str),
            any::<bool>().prop_map(Data::Bool),
            any::<i64>().prop_map(Data::Int),
            any::<f64>().prop_map(Data::Float),
        ];
        leaf.prop_recursive(depth, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Data::List),
                prop::collection::vec((any::<String>(), inner), 0..6).prop_map(Data::Dict),
            ]
        })
    }

    /// What TOML should read back for `d`, or None if `to_toml` must
    /// refuse it.
    fn expected(d: &Data) -> Option<toml::Value> {
        Some(match d {
            Data::Str(s) => toml::Value::String(s.clone()),
            Data::Bool(b) => toml::Value::Boolean(*b),
            Data::Int(i) => toml::Value::Integer(*i),
            Data::Float(x) if x.is_finite() => toml::Value::Float(*x),
            Data::Float(_) => return None,
            Data::List(v) => toml::Value::Array(v.iter().map(expected).collect::<Option<_>>()?),
            Data::Dict(e) => {
                let mut t = toml::Table::new();
                for (k, v) in e {
                    if t.insert(k.clone(), expected(v)?).is_some() {
                        return None;
                    }
                }
                toml::Value::Table(t)
            }
        })
    }

    fn depth_of(d: &Data) -> usize {
        match d {
            Data::List(v) => 1 + v.iter().map(depth_of).max().unwrap_or(0),
            Data::Dict(e) => 1 + e.iter().map(|(_, v)| depth_of(v)).max().unwrap_or(0),
            _ => 0,
        }
    }

    proptest! {
        /// Whatever the tree: no panic; what is written reads back as the
        /// tree; what is refused is a float that is not finite, a key given
        /// twice, or too deep a tree, and the error says where.
        #[test]
        fn the_toml_reads_back_as_the_tree(
            entries in prop::collection::vec((any::<String>(), data(5)), 0..6)
        ) {
            let d = Data::Dict(entries);
            let want = expected(&d);
            match to_toml(&d) {
                Ok(text) => {
                    let got: toml::Table = toml::from_str(&text)
                        .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
                    prop_assert_eq!(Some(toml::Value::Table(got)), want, "{}", text);
                }
                Err(e) => {
                    prop_assert!(want.is_none() || depth_of(&d) > MAX_DEPTH, "{}", e);
                    prop_assert!(e.contains(": "), "{}", e);
                }
            }
        }
    }
}
