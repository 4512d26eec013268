//! The page's URL parameters as a benchmark preset, so a link reproduces a
//! run: `?run=stream,su3&precision=f32,df64&size=small&samples=5&wg=64`.
//! `run` names the apps (and starts them; `all` is every app, as in the
//! CLI's `skylight run all`), `precision` and `samples` set the
//! panel's globals, `tune=SECONDS` starts the Tune action with that budget
//! instead of a run, and every other name is an app parameter.

use skylight_core::{Precision, registry};
use skylight_desktop::Preset;

/// Parses `pairs` (already URL-decoded) into a preset; errors name the bad
/// parameter so the page can show it instead of running something else.
pub fn preset<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Preset, String> {
    let mut p = Preset::default();
    for (k, v) in pairs {
        let list = || v.split(',').map(str::trim).filter(|s| !s.is_empty());
        match k {
            "run" => {
                p.apps = match list().any(|a| a == "all") {
                    true => registry::apps()
                        .iter()
                        .map(|a| a.name().to_string())
                        .collect(),
                    false => list().map(str::to_string).collect(),
                };
                p.autostart = !p.apps.is_empty();
            }
            "precision" => {
                p.precisions = list()
                    .map(|s| {
                        s.parse::<Precision>()
                            .map_err(|e| format!("precision: {e}"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "samples" => {
                let n: u32 = v
                    .parse()
                    .map_err(|_| format!("samples: `{v}` is not a whole number"))?;
                p.samples = Some(n.max(1));
            }
            "tune" => {
                let s: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| *s > 0.0)
                    .ok_or_else(|| format!("tune: `{v}` is not a number of seconds"))?;
                p.tune_budget_s = Some(s);
            }
            _ => p.params.push((k.to_string(), v.to_string())),
        }
    }
    let unknown = p.unknown_apps();
    if !unknown.is_empty() {
        return Err(format!("run: unknown app(s) {}", unknown.join(", ")));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_becomes_a_started_preset() {
        let p = preset([
            ("run", "stream,su3"),
            ("precision", "f32,df64"),
            ("size", "small"),
            ("samples", "4"),
        ])
        .expect("a valid query");
        assert_eq!(p.apps, ["stream", "su3"]);
        assert_eq!(p.precisions, [Precision::F32, Precision::Df64]);
        assert_eq!(p.params, [("size".to_string(), "small".to_string())]);
        assert_eq!(p.samples, Some(4));
        assert!(p.autostart);
        assert_eq!(p.tune_budget_s, None);
        let all = preset([("run", "all")]).expect("every app");
        let names: Vec<&str> = registry::apps().iter().map(|a| a.name()).collect();
        assert_eq!(all.apps, names);
        let t = preset([("run", "su3"), ("tune", "90")]).expect("a tune");
        assert_eq!((t.autostart, t.tune_budget_s), (true, Some(90.0)));
    }

    #[test]
    fn no_run_means_no_start_and_bad_values_are_named() {
        assert!(
            !preset([("size", "small")])
                .expect("a valid query")
                .autostart
        );
        assert!(
            preset([("run", "nope")])
                .expect_err("must be refused")
                .contains("nope")
        );
        assert!(
            preset([("precision", "f16")])
                .expect_err("must be refused")
                .starts_with("precision")
        );
        assert!(
            preset([("tune", "-1")])
                .expect_err("must be refused")
                .starts_with("tune")
        );
        assert!(
            preset([("samples", "x")])
                .expect_err("must be refused")
                .starts_with("samples")
        );
    }
}
