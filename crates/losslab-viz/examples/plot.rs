//! `cargo run --release -p losslab-viz --example plot -- DIR [FLOW|-] [FROM_S] [TO_S]`:
//! plot_run on an existing run directory, timing it.

use std::path::PathBuf;
use std::time::Instant;

use losslab_viz::{plot_run, PlotOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .expect("usage: plot DIR [FLOW|-] [FROM_S] [TO_S]"),
    );
    let flow = args.next().filter(|f| f != "-");
    let num = |s: Option<String>| s.map(|s| s.parse::<f64>().expect("seconds"));
    let opts = PlotOptions {
        flow,
        from_s: num(args.next()),
        to_s: num(args.next()),
        ..Default::default()
    };
    let t = Instant::now();
    match plot_run(&dir, &opts) {
        Ok(files) => {
            for f in &files {
                println!("{}", f.display());
            }
            eprintln!("{} files in {:.2?}", files.len(), t.elapsed());
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
