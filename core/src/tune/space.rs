//! A unit's search space: the app's tunable parameters ([`App::tunable`])
//! with the values to try, less those that make no difference to the unit
//! (the operator's form for a kernel that is not a solve, say), and the
//! case each configuration makes.

use crate::app::{App, Case, Request};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::params::Resolved;

use super::{Config, Unit};

/// One tunable parameter and the values tried.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The parameter, as a request names it.
    pub name: String,
    /// Its values; the first is the app's default where it is among them.
    pub values: Vec<String>,
    /// Whether the user gave the values (the app's default is then not
    /// added to them).
    pub given: bool,
}

/// The tunable parameters of `app` with their values: the app's
/// declaration, where `overrides` (parameter, comma list) replaces some
/// lists. A parameter in `overrides` that is not tunable, or a value the
/// parameter does not take, is an error.
pub fn declared(app: &dyn App, overrides: &[(String, String)]) -> Result<Vec<Axis>> {
    let mut axes: Vec<Axis> = app
        .tunable()
        .into_iter()
        .map(|(name, values)| Axis {
            name: name.to_string(),
            values: split(values),
            given: false,
        })
        .collect();
    for (given, values) in overrides {
        let name = app.param_name(given);
        let Some(axis) = axes.iter_mut().find(|a| Some(a.name.as_str()) == name) else {
            let names: Vec<&str> = app.tunable().iter().map(|(n, _)| *n).collect();
            return Err(Error::bad_param(
                given.clone(),
                match names.is_empty() {
                    true => format!("app `{}` has nothing to tune", app.name()),
                    false => format!(
                        "not a tunable parameter of `{}` (those are: {})",
                        app.name(),
                        names.join(", ")
                    ),
                },
            ));
        };
        // The values are checked as a request's would be.
        Resolved::new(app, &Request::default().set(&axis.name, values.clone()))?;
        axis.values = split(values);
        axis.given = true;
    }
    Ok(axes)
}

/// Whether `name` (or the parameter it is another name of) is one of
/// `app`'s tunable parameters.
pub fn is_tunable(app: &dyn App, name: &str) -> bool {
    app.param_name(name)
        .is_some_and(|n| app.tunable().iter().any(|(t, _)| *t == n))
}

fn split(values: &str) -> Vec<String> {
    values
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

/// The request for `unit` in configuration `config`: `base` (the problem's
/// size and any other parameter a run set), narrowed to the unit's kernel
/// and precision.
pub fn request(app: &dyn App, base: &Request, unit: &Unit, config: &Config) -> Request {
    let mut req = base.clone().precisions(&[unit.precision]);
    if app.param_name("kernel").is_some() {
        req = req.set("kernel", unit.kernel.clone());
    }
    for (k, v) in config {
        req = req.set(k, v.clone());
    }
    req
}

/// The cases of `unit` that `config` makes of `base` (one, unless `base`
/// sweeps a parameter that is not tuned); none where the configuration
/// does not apply to the unit (a variant without this kernel). An
/// impossible configuration (over a limit, a bad combination) is an error.
pub fn cases(
    app: &dyn App,
    base: &Request,
    unit: &Unit,
    config: &Config,
    caps: &Capabilities,
) -> Result<Vec<Case>> {
    let req = request(app, base, unit, config);
    let mut cases = app.cases(&req, caps)?;
    cases.retain(|c| unit.holds(app, c));
    Ok(cases)
}

/// A unit's space: the axes that make a difference to it, each starting
/// at the app's default.
#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    /// The axes searched.
    pub axes: Vec<Axis>,
}

impl Space {
    /// The space of `unit` over `axes`: each axis with the app's default
    /// value first (a default list, such as su3's every mapping, gives its
    /// first value; values the user gave only move it first, if they hold
    /// it), and only the axes that change the case somewhere near
    /// the defaults: at them, or with one other axis moved (milc's blocks
    /// matter to a solve only with its fused operator).
    pub fn new(
        app: &dyn App,
        base: &Request,
        unit: &Unit,
        axes: Vec<Axis>,
        caps: &Capabilities,
    ) -> Space {
        let specs = app.params();
        let mut axes: Vec<Axis> = axes
            .into_iter()
            .map(|mut a| {
                let default = specs
                    .iter()
                    .find(|s| s.name == a.name)
                    .and_then(|s| s.default.split(',').next())
                    .map(|d| d.trim().to_string());
                if let Some(d) = default.filter(|d| !a.given || a.values.contains(d)) {
                    a.values.retain(|v| *v != d);
                    a.values.insert(0, d);
                }
                a
            })
            .collect();
        let all = Space { axes: axes.clone() };
        let start = all.config(&vec![0; axes.len()]);
        let mut near = vec![start.clone()];
        for a in &axes {
            near.extend(a.values[1..].iter().map(|v| with(&start, &a.name, v)));
        }
        let made = |config: &Config| cases(app, base, unit, config, caps).ok();
        axes.retain(|a| {
            near.iter().any(|at| {
                let here = made(at);
                a.values
                    .iter()
                    .filter(|v| at.get(&a.name) != Some(*v))
                    .any(|v| made(&with(at, &a.name, v)) != here)
            })
        });
        Space { axes }
    }

    /// How many configurations the space holds.
    pub fn size(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }

    /// The value count of each axis.
    pub fn dims(&self) -> Vec<usize> {
        self.axes.iter().map(|a| a.values.len()).collect()
    }

    /// The configuration at `point` (an index into each axis).
    pub fn config(&self, point: &[usize]) -> Config {
        self.axes
            .iter()
            .zip(point)
            .map(|(a, &i)| (a.name.clone(), a.values[i].clone()))
            .collect()
    }
}

/// `config` with `name` set to `value`.
fn with(config: &Config, name: &str, value: &str) -> Config {
    let mut c = config.clone();
    c.insert(name.to_string(), value.to_string());
    c
}
