//! Whether to colour: `--color always|never` decide; under `auto`, the environment
//! conventions in the order the tools that define them agree on, then the terminal.

use std::ffi::OsString;

use super::ColorArg;

/// `--color auto`: `NO_COLOR` set and not empty turns colour off (an empty one is unset, per
/// no-color.org); else `FORCE_COLOR` (force-color.org; `0` and `false` do not force, as in
/// Node) or `CLICOLOR_FORCE` (bixense.com/clicolors; `0` does not force) set and not empty
/// turn it on, even into a file or pipe; else `CLICOLOR=0` turns it off; else colour only
/// when the output is a terminal.
pub(crate) fn use_color(
    choice: ColorArg,
    env: impl Fn(&str) -> Option<OsString>,
    is_terminal: bool,
) -> bool {
    let set = |name: &str, off: &[&str]| {
        env(name).is_some_and(|v| !v.is_empty() && !off.iter().any(|o| v == **o))
    };
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto if set("NO_COLOR", &[]) => false,
        ColorArg::Auto if set("FORCE_COLOR", &["0", "false"]) => true,
        ColorArg::Auto if set("CLICOLOR_FORCE", &["0"]) => true,
        ColorArg::Auto if env("CLICOLOR").is_some_and(|v| v == "0") => false,
        ColorArg::Auto => is_terminal,
    }
}

/// [`use_color`] with the process environment.
pub(crate) fn use_color_here(choice: ColorArg, is_terminal: bool) -> bool {
    use_color(choice, |name| std::env::var_os(name), is_terminal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(vars: &[(&str, &str)], tty: bool) -> bool {
        let env = |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        };
        use_color(ColorArg::Auto, env, tty)
    }

    #[test]
    fn environment_conventions() {
        assert!(auto(&[], true));
        assert!(!auto(&[], false));
        assert!(!auto(&[("NO_COLOR", "1")], true));
        // An empty NO_COLOR is not set.
        assert!(auto(&[("NO_COLOR", "")], true));
        assert!(auto(&[("FORCE_COLOR", "1")], false));
        assert!(auto(&[("FORCE_COLOR", "3")], false));
        assert!(!auto(&[("FORCE_COLOR", "0")], false));
        assert!(!auto(&[("FORCE_COLOR", "")], false));
        assert!(auto(&[("CLICOLOR_FORCE", "1")], false));
        assert!(!auto(&[("CLICOLOR_FORCE", "0")], false));
        // NO_COLOR wins over forcing.
        assert!(!auto(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")], false));
        assert!(!auto(&[("CLICOLOR", "0")], true));
        assert!(auto(&[("CLICOLOR", "0"), ("CLICOLOR_FORCE", "1")], false));
    }

    #[test]
    fn the_flag_wins() {
        let env = |_: &str| Some(OsString::from("1"));
        assert!(use_color(ColorArg::Always, env, false));
        assert!(!use_color(ColorArg::Never, env, true));
    }
}
