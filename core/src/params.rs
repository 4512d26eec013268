//! Typed case parameters. A request's parameters arrive as text and a case
//! records them as text (result files keep them so); in between, each app
//! works with its own typed `Params`: enums for the named choices (declared
//! with [`choice!`](crate::choice)), numbers for the rest. [`Grid`] expands
//! the request's lists into `Params` values, and each app turns a value into
//! its [`Case`] (variant label and record parameters) and back.

use std::collections::BTreeMap;

use crate::app::{App, Case, ParamKind, ParamSpec, Request, check_wg};
use crate::error::{Error, Result};
use crate::gpu::Capabilities;
use crate::precision::Precision;

/// A parameter whose values are a fixed set of names, one enum variant each.
pub trait Choice: Copy + PartialEq + 'static {
    /// The parameter's name, in requests and errors.
    const PARAM: &'static str;
    /// Every value's name, in declaration order.
    const NAMES: &'static [&'static str];
    /// Every value, in declaration order.
    const ALL: &'static [Self];

    /// The value's name.
    fn name(self) -> &'static str {
        let i = Self::ALL.iter().position(|v| *v == self).unwrap_or(0);
        Self::NAMES[i]
    }

    /// The value called `text`; `BadParameter` naming [`Choice::PARAM`] otherwise.
    fn parse(text: &str) -> Result<Self> {
        Self::NAMES
            .iter()
            .position(|n| *n == text)
            .map(|i| Self::ALL[i])
            .ok_or_else(|| {
                Error::bad_param(
                    Self::PARAM,
                    format!("`{text}` is not one of {}", Self::NAMES.join(", ")),
                )
            })
    }
}

/// Declares an enum of a parameter's choices: `choice! { /// doc
/// pub enum Layout("layout") { /// doc
/// Aos = "aos", ... } }`
/// derives the usual traits, implements [`Choice`] and `Display` (the name).
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($param:literal) {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $crate::params::Choice for $name {
            const PARAM: &'static str = $param;
            const NAMES: &'static [&'static str] = &[$($text),+];
            const ALL: &'static [Self] = &[$($name::$variant),+];
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::params::Choice::name(*self))
            }
        }
    };
}

/// A request resolved against an app's parameter list: every value checked,
/// every alias replaced by the parameter's name, defaults filled in.
#[derive(Clone, Debug)]
pub struct Resolved {
    values: BTreeMap<&'static str, Vec<String>>,
    /// Precisions asked for (the app's defaults when the request names none).
    pub precisions: Vec<Precision>,
}

impl Resolved {
    /// Checks `req` against `app`'s parameters: unknown names and bad values
    /// are errors.
    pub fn new(app: &dyn App, req: &Request) -> Result<Self> {
        let specs = app.params();
        let mut given: BTreeMap<&'static str, &str> = BTreeMap::new();
        for (k, v) in &req.params {
            let Some(name) = app.param_name(k) else {
                let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
                return Err(Error::bad_param(
                    k.clone(),
                    format!(
                        "app `{}` has no such parameter (it has: {})",
                        app.name(),
                        names.join(", ")
                    ),
                ));
            };
            if given.insert(name, v).is_some() {
                return Err(Error::bad_param(
                    k.clone(),
                    format!("`{name}` is given twice"),
                ));
            }
        }
        let mut values = BTreeMap::new();
        for s in &specs {
            let raw = given.get(s.name).copied().unwrap_or(s.default);
            values.insert(s.name, values_of(s, raw)?);
        }
        let precisions = if req.precisions.is_empty() {
            app.default_precisions()
        } else {
            req.precisions.clone()
        };
        Ok(Resolved { values, precisions })
    }

    /// Every value of parameter `name` (one unless the user swept it).
    pub fn list(&self, name: &str) -> &[String] {
        self.values.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Every value of an integer parameter.
    pub fn uints(&self, name: &str) -> Vec<u64> {
        self.list(name)
            .iter()
            .filter_map(|v| v.parse().ok())
            .collect()
    }

    /// The first value of an integer parameter (one that is not swept).
    pub fn uint(&self, name: &str) -> u64 {
        self.uints(name).first().copied().unwrap_or_default()
    }

    /// The single value of a text parameter.
    pub fn text(&self, name: &str) -> &str {
        self.list(name).first().map(String::as_str).unwrap_or("")
    }

    /// Every value of the choice parameter `C`.
    pub fn choices<C: Choice>(&self) -> Vec<C> {
        self.list(C::PARAM)
            .iter()
            .filter_map(|v| C::parse(v).ok())
            .collect()
    }

    /// The first value of the choice parameter `C` (one that is not swept).
    pub fn choice<C: Choice>(&self) -> C {
        self.choices().first().copied().unwrap_or(C::ALL[0])
    }

    /// Every workgroup size of the `wg` parameter, each checked against `caps`.
    pub fn wgs(&self, caps: &Capabilities) -> Result<Vec<u32>> {
        self.uints("wg")
            .into_iter()
            .map(|wg| check_wg(wg, caps))
            .collect()
    }
}

/// The values `raw` gives parameter `s`: one for text, else a comma list,
/// each checked against the parameter's kind.
fn values_of(s: &ParamSpec, raw: &str) -> Result<Vec<String>> {
    let list: Vec<String> = match s.kind {
        ParamKind::Text => vec![raw.trim().to_string()],
        _ => raw
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect(),
    };
    if list.is_empty() {
        return Err(Error::bad_param(s.name, "empty value"));
    }
    for v in &list {
        match &s.kind {
            ParamKind::Choice(opts) if !opts.contains(&v.as_str()) => {
                return Err(Error::bad_param(
                    s.name,
                    format!("`{v}` is not one of {}", opts.join(", ")),
                ));
            }
            ParamKind::UInt { min, max } => {
                let n: u64 = v.parse().map_err(|_| {
                    Error::bad_param(s.name, format!("`{v}` is not a whole number"))
                })?;
                if n < *min || n > *max {
                    return Err(Error::bad_param(
                        s.name,
                        format!("{n} is outside {min}..={max}"),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(list)
}

impl Case {
    /// The case's kernel as the app's kernel enum.
    pub fn kernel_as<K: Choice>(&self) -> Result<K> {
        K::parse(&self.kernel)
    }

    /// Parameter [`Choice::PARAM`] as its enum.
    pub fn choice<C: Choice>(&self) -> Result<C> {
        C::parse(self.text(C::PARAM))
    }

    /// Parameter `name` as the enum `C` (for a choice recorded under another name).
    pub fn choice_at<C: Choice>(&self, name: &str) -> Result<C> {
        C::parse(self.text(name)).map_err(|e| match e {
            Error::BadParameter { reason, .. } => Error::bad_param(name, reason),
            other => other,
        })
    }

    /// A parameter parsed as a 32-bit integer; `BadParameter` if absent,
    /// malformed or too large.
    pub fn u32(&self, name: &str) -> Result<u32> {
        u32::try_from(self.uint(name)?).map_err(|_| Error::bad_param(name, "larger than 2^32 - 1"))
    }
}

/// The cartesian product of parameter lists over a base value: every point
/// so far is repeated once per value of the next axis (the last axis added
/// varies fastest), so a grid built axis by axis lists its points in the
/// order of the nested loops it replaces.
#[derive(Clone, Debug)]
pub struct Grid<P> {
    points: Vec<P>,
}

impl<P: Clone> Grid<P> {
    /// A grid of one point.
    pub fn new(base: P) -> Grid<P> {
        Grid { points: vec![base] }
    }

    /// Adds an axis: each point once per value of `values`, given by `set`.
    pub fn axis<V: Clone>(self, values: &[V], set: impl Fn(&mut P, V)) -> Grid<P> {
        self.axis_where(|_| true, values, set)
    }

    /// Adds an axis only to the points where `applies` holds; the others
    /// stay as they are, once.
    pub fn axis_where<V: Clone>(
        self,
        applies: impl Fn(&P) -> bool,
        values: &[V],
        set: impl Fn(&mut P, V),
    ) -> Grid<P> {
        let mut points = Vec::with_capacity(self.points.len() * values.len());
        for p in self.points {
            if !applies(&p) {
                points.push(p);
                continue;
            }
            for v in values {
                let mut q = p.clone();
                set(&mut q, v.clone());
                points.push(q);
            }
        }
        Grid { points }
    }

    /// Every point changed by `f` (an `auto` value resolved once the
    /// point's other values are known, say).
    pub fn each(self, f: impl Fn(&mut P)) -> Grid<P> {
        let mut points = self.points;
        points.iter_mut().for_each(f);
        Grid { points }
    }

    /// The points, in order.
    pub fn points(self) -> Vec<P> {
        self.points
    }

    /// The points in order, each once: where `auto` and the value it
    /// resolves to were both asked for, the case runs once.
    pub fn distinct_points(self) -> Vec<P>
    where
        P: PartialEq,
    {
        let mut out: Vec<P> = Vec::with_capacity(self.points.len());
        for p in self.points {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precision::Precision;

    choice! {
        /// A test choice.
        enum Shape("shape") {
            /// Round.
            Round = "round",
            /// Square.
            Square = "square",
        }
    }

    #[test]
    fn choices_parse_and_name_their_parameter() {
        assert_eq!(Shape::parse("square").ok(), Some(Shape::Square));
        assert_eq!(Shape::Round.to_string(), "round");
        match Shape::parse("oval") {
            Err(Error::BadParameter { name, .. }) => assert_eq!(name, "shape"),
            other => panic!("{other:?}"),
        }
        let case = Case::new("a", "square", "v", Precision::F32).param("form", "oval");
        assert_eq!(case.kernel_as::<Shape>().ok(), Some(Shape::Square));
        match case.choice_at::<Shape>("form") {
            Err(Error::BadParameter { name, .. }) => assert_eq!(name, "form"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            case.choice::<Shape>(),
            Err(Error::BadParameter { .. })
        ));
    }

    #[test]
    fn grid_nests_axes_in_order() {
        let g = Grid::new((0, 0))
            .axis(&[1, 2], |p, v| p.0 = v)
            .axis_where(|p| p.0 == 2, &[5, 6], |p, v| p.1 = v)
            .points();
        assert_eq!(g, [(1, 0), (2, 5), (2, 6)]);
        // Resolved points that coincide are kept once, in order.
        let once = Grid::new((0, 0))
            .axis(&[3, 1, 2], |p, v| p.0 = v)
            .each(|p| p.0 = p.0.min(2))
            .distinct_points();
        assert_eq!(once, [(2, 0), (1, 0)]);
    }
}
