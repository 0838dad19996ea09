//! Properties of units and overrides that examples alone would not cover.

use losslab_sim::parse::parse_scenario;
use losslab_sim::units::{
    format_duration, format_rate, format_size, parse_duration, parse_rate, parse_size,
};
use proptest::prelude::*;

const MINIMAL: &str = "[path]\nrate = \"10Mbps\"\ndelay = \"20ms\"\n\n[[flow]]\nname = \"a\"\n";

proptest! {
    #[test]
    fn formatted_units_parse_back(x in any::<u64>()) {
        prop_assert_eq!(parse_duration(&format_duration(x)), Ok(x));
        prop_assert_eq!(parse_size(&format_size(x)), Ok(x));
        if x > 0 {
            prop_assert_eq!(parse_rate(&format_rate(x)), Ok(x));
        }
    }

    #[test]
    fn unit_parsers_never_panic(s in "\\PC{0,12}") {
        let _ = parse_duration(&s);
        let _ = parse_rate(&s);
        let _ = parse_size(&s);
    }

    /// Whatever is passed to --set, the answer is a scenario or an error
    /// naming the command line or the file, never a panic.
    #[test]
    fn any_override_is_handled(
        key in "(flow|path|seed|name|reverse|flow\\.a|flow\\[[0-9]\\]|path\\.loss|\"x\")(\\.[a-z_\\[\\]0-9\"]{0,8}){0,3}",
        value in "\\PC{0,16}",
    ) {
        let spec = format!("{key}={value}");
        match parse_scenario("p.toml", MINIMAL, &[spec]) {
            Ok(_) => {}
            Err(e) => prop_assert!(e.file == "<command line>" || e.file == "p.toml", "{}", e),
        }
    }
}
