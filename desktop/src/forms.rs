//! The benchmark panel's model: one form per registry app, generated from its
//! parameter list, the global precision and sample choices, presets that fill
//! them in, and the [`Job`] they describe.

use skylight_core::Precision;
use skylight_core::app::{ParamKind, ParamSpec, Request};
use skylight_core::device::{Api, Selector};
use skylight_core::registry;
use skylight_core::runner::RunOptions;

use crate::worker::Job;

/// A benchmark selection to load into the panel (the desktop's `--demo`, the
/// web page's URL parameters), optionally started at the first frame.
#[derive(Clone, Debug, Default)]
pub struct Preset {
    /// Apps to tick, by registry name; all others are unticked.
    pub apps: Vec<String>,
    /// Precisions to tick; empty keeps the current choice.
    pub precisions: Vec<Precision>,
    /// Parameter values, applied to every ticked app that has the parameter.
    pub params: Vec<(String, String)>,
    /// Timed samples per case (`None` keeps the default).
    pub samples: Option<u32>,
    /// Start the run at the first frame.
    pub autostart: bool,
    /// Tune instead of running, for this many seconds (the Tune action's
    /// budget), when it starts.
    pub tune_budget_s: Option<f64>,
}

impl Preset {
    /// The small stream + peak run of the desktop's `--demo`.
    pub fn demo() -> Preset {
        Preset {
            apps: vec!["stream".into(), "peak".into()],
            precisions: Vec::new(),
            params: vec![
                ("size".into(), "small".into()),
                ("iters".into(), "64".into()),
            ],
            samples: Some(3),
            autostart: true,
            tune_budget_s: None,
        }
    }

    /// Names in `apps` that the registry does not know.
    pub fn unknown_apps(&self) -> Vec<String> {
        self.apps
            .iter()
            .filter(|a| registry::find(a).is_err())
            .cloned()
            .collect()
    }
}

/// A parameter's widget state.
#[derive(Clone, Debug)]
pub enum ParamValue {
    /// One flag per option of a choice; several checked sweep over them.
    Choice(Vec<bool>),
    /// Text for integers (a comma list sweeps) and free text.
    Text(String),
}

/// One parameter of an app: what the app declares and what the user entered.
#[derive(Clone, Debug)]
pub struct ParamForm {
    /// The app's declaration: name, help, kind and default.
    pub spec: ParamSpec,
    /// The widget state.
    pub value: ParamValue,
}

impl ParamForm {
    /// The form of `spec`, holding its default.
    pub fn new(spec: ParamSpec) -> Self {
        let value = match &spec.kind {
            ParamKind::Choice(opts) => {
                let on: Vec<&str> = spec.default.split(',').map(str::trim).collect();
                ParamValue::Choice(opts.iter().map(|o| on.contains(o)).collect())
            }
            _ => ParamValue::Text(spec.default.to_string()),
        };
        ParamForm { spec, value }
    }

    /// The value as the core's request syntax spells it (comma list for a sweep).
    pub fn request_value(&self) -> String {
        match (&self.value, &self.spec.kind) {
            (ParamValue::Choice(on), ParamKind::Choice(opts)) => opts
                .iter()
                .zip(on)
                .filter(|(_, on)| **on)
                .map(|(o, _)| *o)
                .collect::<Vec<_>>()
                .join(","),
            (ParamValue::Text(t), _) => t.clone(),
            _ => self.spec.default.to_string(),
        }
    }

    /// Sets the value from request syntax (a comma list ticks several choices).
    pub fn set(&mut self, value: &str) {
        match (&mut self.value, &self.spec.kind) {
            (ParamValue::Choice(on), ParamKind::Choice(opts)) => {
                let want: Vec<&str> = value.split(',').map(str::trim).collect();
                for (flag, o) in on.iter_mut().zip(opts.iter()) {
                    *flag = want.contains(o);
                }
            }
            (ParamValue::Text(t), _) => *t = value.to_string(),
            _ => {}
        }
    }
}

/// One app's section of the benchmark panel, generated from its parameter list.
#[derive(Clone, Debug)]
pub struct AppForm {
    /// Registry name.
    pub name: &'static str,
    /// One-line description, shown on hover.
    pub about: &'static str,
    /// Whether the app is ticked to run.
    pub enabled: bool,
    /// The precisions the app runs when none is forced; the panel's choice is
    /// intersected with these so an app is never asked for one it lacks.
    pub default_precisions: Vec<Precision>,
    /// Its parameters, in the app's order.
    pub params: Vec<ParamForm>,
}

/// Everything the benchmark panel edits.
#[derive(Clone, Debug)]
pub struct Forms {
    /// One form per registry app, in registry order.
    pub apps: Vec<AppForm>,
    /// Ticked precisions, in [`Precision::ALL`]'s order.
    pub precisions: [bool; 3],
    /// Timed samples per case (at most: slow kernels take fewer, see
    /// [`RunOptions::budget_s`]).
    pub samples: u32,
    /// Seconds the Tune action may take.
    pub tune_budget_s: f64,
}

impl Default for Forms {
    /// Every registry app unticked with its defaults, every precision ticked.
    fn default() -> Self {
        let apps = registry::apps()
            .into_iter()
            .map(|a| AppForm {
                name: a.name(),
                about: a.about(),
                enabled: false,
                default_precisions: a.default_precisions(),
                params: a.params().into_iter().map(ParamForm::new).collect(),
            })
            .collect();
        Forms {
            apps,
            precisions: [true, true, true],
            samples: RunOptions::default().samples,
            tune_budget_s: 60.0,
        }
    }
}

impl Forms {
    /// Loads `preset`; returns what it names that does not exist (unknown
    /// apps, parameters no chosen app has) so the caller can report them
    /// rather than silently ignore them.
    pub fn apply(&mut self, preset: &Preset) -> Vec<String> {
        let mut problems: Vec<String> = preset
            .unknown_apps()
            .into_iter()
            .map(|a| format!("unknown app `{a}` in the preset"))
            .collect();
        for f in &mut self.apps {
            f.enabled = preset.apps.iter().any(|a| a == f.name);
            if !f.enabled {
                continue;
            }
            for p in &mut f.params {
                let named = |k: &str| param_name(f.name, k) == Some(p.spec.name);
                if let Some((_, v)) = preset.params.iter().find(|(k, _)| named(k)) {
                    p.set(v);
                }
            }
        }
        for (k, _) in &preset.params {
            let known = self
                .apps
                .iter()
                .filter(|f| f.enabled)
                .any(|f| param_name(f.name, k).is_some());
            if !known {
                problems.push(format!("no chosen app has a parameter `{k}`"));
            }
        }
        if !preset.precisions.is_empty() {
            for (p, on) in Precision::ALL.iter().zip(self.precisions.iter_mut()) {
                *on = preset.precisions.contains(p);
            }
        }
        if let Some(n) = preset.samples {
            self.samples = n;
        }
        if let Some(s) = preset.tune_budget_s {
            self.tune_budget_s = s;
        }
        problems
    }

    fn chosen_precisions(&self) -> Vec<Precision> {
        Precision::ALL
            .iter()
            .zip(self.precisions)
            .filter(|(_, on)| *on)
            .map(|(p, _)| *p)
            .collect()
    }

    /// The job the forms describe, on `selector` through `api`: one
    /// request per ticked app.
    pub fn job(&self, selector: Selector, api: Option<Api>) -> Result<Job, String> {
        let chosen = self.chosen_precisions();
        if chosen.is_empty() {
            return Err("choose at least one precision".into());
        }
        let mut runs = Vec::new();
        for f in self.apps.iter().filter(|f| f.enabled) {
            let precisions: Vec<Precision> = chosen
                .iter()
                .copied()
                .filter(|p| f.default_precisions.contains(p))
                .collect();
            if precisions.is_empty() {
                continue;
            }
            let mut req = Request::default().precisions(&precisions);
            for p in &f.params {
                let v = p.request_value();
                // A parameter whose default is empty (snap's `refdata`) is
                // optional; any other needs a value.
                if v.trim().is_empty() && !p.spec.default.trim().is_empty() {
                    return Err(format!("{}: choose a value for `{}`", f.name, p.spec.name));
                }
                // A parameter left at its default stays unset, as on the
                // command line: the tuning cache's best may then set it.
                let items = |s: &str| s.split(',').map(str::trim).collect::<Vec<_>>().join(",");
                if items(&v) != items(p.spec.default) {
                    req = req.set(p.spec.name, v);
                }
            }
            runs.push((f.name.to_string(), req));
        }
        if runs.is_empty() {
            return Err("choose at least one app that supports the chosen precisions".into());
        }
        Ok(Job {
            selector,
            api,
            runs,
            opts: RunOptions {
                samples: self.samples.max(1),
                ..RunOptions::default()
            },
            tune_budget_s: None,
        })
    }
}

/// The parameter of app `app` that a preset's `name` sets (its own name or
/// an alias, as the CLI resolves them: su3's `mapping` is its `variant`).
fn param_name(app: &str, name: &str) -> Option<&'static str> {
    registry::find(app).ok()?.param_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choice_parameters_round_trip_to_request_syntax() {
        let spec = ParamSpec {
            name: "kernel",
            help: "",
            kind: ParamKind::Choice(&["copy", "mul", "add"]),
            default: "copy,add",
        };
        let mut p = ParamForm::new(spec);
        assert_eq!(p.request_value(), "copy,add");
        p.set("mul");
        assert_eq!(p.request_value(), "mul");
    }

    /// A link's `mapping` (su3's parameter's old name, kept as an alias)
    /// sets its `variant`, as `--set mapping=` does in the CLI, and counts
    /// as a known parameter.
    #[test]
    fn a_preset_names_parameters_by_their_aliases_too() {
        let mut forms = Forms::default();
        let preset = Preset {
            apps: vec!["su3".into()],
            params: vec![("mapping".into(), "element".into())],
            ..Preset::default()
        };
        assert!(forms.apply(&preset).is_empty());
        let su3 = forms.apps.iter().find(|f| f.name == "su3").expect("su3");
        let variant = su3
            .params
            .iter()
            .find(|p| p.spec.name == "variant")
            .expect("variant");
        assert_eq!(variant.request_value(), "element");
    }

    /// A parameter left at its default stays out of the request, so that
    /// a run may take it from the tuning cache.
    #[test]
    fn a_job_sets_only_the_parameters_changed() {
        let mut forms = Forms::default();
        let preset = Preset {
            apps: vec!["su3".into()],
            params: vec![("wg".into(), "64".into())],
            ..Preset::default()
        };
        assert!(forms.apply(&preset).is_empty());
        let job = forms.job(Selector::Auto, None).expect("a job");
        let names: Vec<&String> = job.runs[0].1.params.keys().collect();
        assert_eq!(names, ["wg"]);
        assert_eq!(job.tune_budget_s, None);
    }

    /// Every app's job builds at its defaults (snap's optional `refdata`
    /// left empty); a required parameter left empty is refused by name.
    #[test]
    fn every_app_runs_at_its_defaults_and_an_empty_value_is_named() {
        let mut forms = Forms::default();
        let names: Vec<String> = registry::apps().iter().map(|a| a.name().into()).collect();
        let preset = Preset {
            apps: names.clone(),
            ..Preset::default()
        };
        assert!(forms.apply(&preset).is_empty());
        let job = forms.job(Selector::Auto, None).expect("a job");
        let ran: Vec<&String> = job.runs.iter().map(|(a, _)| a).collect();
        assert_eq!(ran.len(), names.len(), "{ran:?}");
        let empty = Preset {
            apps: vec!["su3".into()],
            params: vec![("wg".into(), String::new())],
            ..Preset::default()
        };
        assert!(forms.apply(&empty).is_empty());
        let err = forms.job(Selector::Auto, None).expect_err("refused");
        assert!(err.contains("su3: choose a value for `wg`"), "{err}");
    }

    /// A link's `tune=SECONDS` (the page's `?tune=`) sets the Tune
    /// action's budget; without it the budget is left as it was.
    #[test]
    fn a_preset_sets_the_tune_budget() {
        let mut forms = Forms::default();
        let before = forms.tune_budget_s;
        let run = Preset {
            apps: vec!["su3".into()],
            ..Preset::default()
        };
        assert!(forms.apply(&run).is_empty());
        assert_eq!(forms.tune_budget_s, before);
        let tune = Preset {
            tune_budget_s: Some(90.0),
            ..run
        };
        assert!(forms.apply(&tune).is_empty());
        assert_eq!(forms.tune_budget_s, 90.0);
    }
}
