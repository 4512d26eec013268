//! TestSNAP reference configurations as JSON (see `assets/testsnap/`):
//! inputs, coefficients and the reference forces on every atom. Any file of
//! that format loads (other 2J values, atom and neighbour counts); every
//! field is checked, and a malformed file is a [`Error::BadFile`] naming
//! the field, never a panic.

use serde_json::Value;

use super::sna::{Config, ncoeff};
use crate::error::{Error, Result};

/// Largest 2J accepted (the factorials of the Clebsch-Gordan coefficients
/// stay exact in f64 well past it, and 2J = 14 is the largest benchmark).
pub const MAX_TWOJ: u64 = 20;

/// A reference configuration and its forces.
#[derive(Clone, Debug)]
pub struct RefData {
    /// The inputs.
    pub config: Config,
    /// Reference force on every atom, 3 per atom.
    pub fj: Vec<f64>,
}

struct Fields<'a> {
    path: &'a str,
    obj: &'a serde_json::Map<String, Value>,
}

impl Fields<'_> {
    fn bad(&self, reason: String) -> Error {
        Error::BadFile {
            path: self.path.to_string(),
            reason,
        }
    }

    fn get(&self, name: &str) -> Result<&Value> {
        self.obj
            .get(name)
            .ok_or_else(|| self.bad(format!("missing field `{name}`")))
    }

    fn uint(&self, name: &str, max: u64) -> Result<u64> {
        let v = self
            .get(name)?
            .as_u64()
            .ok_or_else(|| self.bad(format!("`{name}` is not a whole number")))?;
        if v > max {
            return Err(self.bad(format!("`{name}` = {v} is larger than {max}")));
        }
        Ok(v)
    }

    fn reals(&self, name: &str, len: usize) -> Result<Vec<f64>> {
        let arr = self
            .get(name)?
            .as_array()
            .ok_or_else(|| self.bad(format!("`{name}` is not an array")))?;
        if arr.len() != len {
            return Err(self.bad(format!("`{name}` has {} values, expected {len}", arr.len())));
        }
        arr.iter()
            .enumerate()
            .map(|(k, v)| {
                v.as_f64()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| self.bad(format!("`{name}`[{k}] is not a finite number")))
            })
            .collect()
    }
}

/// Parses a reference file's text; `path` names it in errors.
pub fn parse(text: &str, path: &str) -> Result<RefData> {
    let root: Value = serde_json::from_str(text).map_err(|e| Error::BadFile {
        path: path.to_string(),
        reason: format!("not JSON: {e}"),
    })?;
    let obj = root.as_object().ok_or_else(|| Error::BadFile {
        path: path.to_string(),
        reason: "not a JSON object".into(),
    })?;
    let f = Fields { path, obj };
    let twojmax = f.uint("twojmax", MAX_TWOJ)? as u32;
    let want = ncoeff(twojmax);
    let nc = f.uint("ncoeff", u32::MAX as u64)? as usize;
    if nc != want {
        return Err(f.bad(format!(
            "`ncoeff` = {nc}, but 2J = {twojmax} has {want} bispectrum components"
        )));
    }
    let rcut = f
        .get("rcutfac")?
        .as_f64()
        .ok_or_else(|| f.bad("`rcutfac` is not a number".into()))?;
    if !(rcut.is_finite() && rcut > 0.0) {
        return Err(f.bad(format!("`rcutfac` = {rcut} is not a positive cutoff")));
    }
    // Counts are bounded so the products below cannot overflow.
    let nlocal = f.uint("nlocal", 1 << 24)? as usize;
    let nghost = f.uint("nghost", 1 << 24)? as usize;
    let nnbr = f.uint("ninside", 1 << 12)? as usize;
    if nlocal == 0 || nnbr == 0 {
        return Err(f.bad("`nlocal` and `ninside` must be positive".into()));
    }
    let ntotal = nlocal + nghost;
    let coeff = f.reals("coeff", want + 1)?;
    if let Some(ids) = obj.get("idlist") {
        let n = ids.as_array().map(Vec::len);
        if n != Some(nlocal) {
            return Err(f.bad(format!("`idlist` must be an array of {nlocal} atom ids")));
        }
    }
    let jl = f.reals("jlist", nlocal * nnbr)?;
    let mut jlist = Vec::with_capacity(jl.len());
    for (k, &j) in jl.iter().enumerate() {
        if j < 0.0 || j.fract() != 0.0 || j >= ntotal as f64 {
            return Err(f.bad(format!(
                "`jlist`[{k}] = {j} is not an atom index below ntotal = {ntotal}"
            )));
        }
        jlist.push(j as u32);
    }
    let flat = f.reals("rij", nlocal * nnbr * 3)?;
    let rij: Vec<[f64; 3]> = flat.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    for (k, r) in rij.iter().enumerate() {
        let d = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
        if !(d > 0.0 && d < rcut) {
            return Err(f.bad(format!(
                "`rij` vector {k} has length {d}, outside (0, rcutfac = {rcut})"
            )));
        }
    }
    let fj = f.reals("fj", ntotal * 3)?;
    Ok(RefData {
        config: Config {
            twojmax,
            rcut,
            coeff,
            nlocal,
            ntotal,
            nnbr,
            jlist,
            rij,
        },
        fj,
    })
}

/// Reads and parses a reference file.
pub fn load(path: &str) -> Result<RefData> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::BadFile {
        path: path.to_string(),
        reason: format!("cannot read: {e}"),
    })?;
    parse(&text, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWOJ2: &str = include_str!("../../../../assets/testsnap/2J2_W.json");

    #[test]
    fn shipped_files_parse() {
        let r = parse(TWOJ2, "2J2_W.json").expect("parses");
        assert_eq!(r.config.twojmax, 2);
        assert_eq!(r.config.rij.len(), 16);
        assert_eq!(r.fj.len(), 35 * 3);
    }

    #[test]
    fn malformed_files_name_the_field() {
        let mut v: Value = serde_json::from_str(TWOJ2).expect("json");
        let cases: Vec<(&str, Value, &str)> = vec![
            ("rij", Value::from(vec![1.0; 47]), "`rij` has 47 values"),
            ("fj", Value::from(vec![0.0; 3]), "`fj` has 3 values"),
            ("coeff", Value::from(vec![0.0; 5]), "`coeff` has 5 values"),
            ("jlist", Value::from(vec![99u32; 16]), "`jlist`[0]"),
            ("ncoeff", Value::from(6), "`ncoeff` = 6"),
            (
                "twojmax",
                Value::from(-1),
                "`twojmax` is not a whole number",
            ),
            ("rcutfac", Value::from(0.5), "outside (0, rcutfac"),
        ];
        for (field, value, msg) in cases {
            let old = v[field].clone();
            v[field] = value;
            match parse(&v.to_string(), "x.json") {
                Err(Error::BadFile { path, reason }) => {
                    assert_eq!(path, "x.json", "{field}");
                    assert!(reason.contains(msg), "{field}: {reason}");
                }
                other => panic!("{field}: {other:?}"),
            }
            v[field] = old;
        }
        let obj = v.as_object_mut().expect("object");
        obj.remove("nghost");
        match parse(&v.to_string(), "x.json") {
            Err(Error::BadFile { reason, .. }) => {
                assert!(reason.contains("`nghost`"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse("[1, 2", "t.json"),
            Err(Error::BadFile { path, .. }) if path == "t.json"
        ));
        assert!(matches!(
            load("/nonexistent/snap.json"),
            Err(Error::BadFile { .. })
        ));
    }
}
