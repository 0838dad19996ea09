//! How long the machine itself stops a SCHED_FIFO thread: spin on the
//! clock for N seconds (default 10) and report the gaps. The emulator
//! cannot be more punctual than this; docs/BENCHMARKS.md quotes it beside
//! the emulator's lateness.
//!   sudo cargo run --release -p losslab-net --example stall_probe [SECONDS]

use losslab_net::sys;

fn main() {
    let secs: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let rt = sys::set_realtime(50);
    let t0 = sys::now_ns();
    let end = t0 + secs * 1_000_000_000;
    let (mut last, mut worst) = (t0, 0u64);
    let mut over = [0u64; 3];
    let mut window_cpu = (t0, sys::thread_cpu_ns());
    loop {
        let now = sys::now_ns();
        if now >= end {
            break;
        }
        let gap = now - last;
        worst = worst.max(gap);
        for (i, lim) in [100_000u64, 200_000, 1_000_000].iter().enumerate() {
            if gap > *lim {
                over[i] += 1;
            }
        }
        last = now;
        // Sleep 30 ms of every 100 so RT throttling never stops us: the
        // probe must only see stalls the emulator would see.
        if now - window_cpu.0 >= 70_000_000 {
            std::thread::sleep(std::time::Duration::from_millis(30));
            last = sys::now_ns();
            window_cpu = (last, sys::thread_cpu_ns());
        }
    }
    println!(
        "{secs} s spinning{}: worst gap {:.1} us; gaps over 100 us: {}, over 200 us: {}, over 1 ms: {}",
        if rt { " under SCHED_FIFO" } else { " (SCHED_FIFO refused)" },
        worst as f64 / 1000.0,
        over[0],
        over[1],
        over[2]
    );
}
