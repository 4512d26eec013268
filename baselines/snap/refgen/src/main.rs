//! `snap-refgen <cells> <twojmax> <seed> <struct.h> <out.h> [out.json]`:
//! Skylight's synthetic `snap` problem (BCC tungsten of `cells`^3 unit cells,
//! 2 atoms each, every atom displaced at random, random coefficients: see
//! `skylight_core::apps::snap::lattice`) as a TestSNAP reference header, with
//! the forces of Skylight's CPU f64 reference as the `fj` TestSNAP checks
//! against. The header's struct declaration is the checkout's own
//! (`struct.h`, cut from its `refdata_2J2_W.h` by build.sh), so the fields
//! are written in the order it declares them. `out.json` is the same problem
//! in Skylight's reference format (`skylight run snap --refdata out.json`).
//!
//! Periodic images are folded into the local atoms (minimum image), so there
//! are no ghost atoms: `nghost = 0`, `jlist` names local atoms.

use std::fmt::Write as _;
use std::process::ExitCode;

use rand::SeedableRng;
use skylight_core::apps::snap::lattice;
use skylight_core::apps::snap::sna::Config;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if !(6..=7).contains(&args.len()) {
        eprintln!(
            "usage: {} <cells> <twojmax> <seed> <struct.h> <out.h> [out.json]",
            args[0]
        );
        return ExitCode::from(2);
    }
    match run(&args[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("snap-refgen: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let num = |i: usize, what: &str| -> Result<u64, String> {
        args[i]
            .parse()
            .map_err(|_| format!("{what} `{}` is not a whole number", args[i]))
    };
    let (cells, twoj, seed) = (num(0, "cells")?, num(1, "twojmax")?, num(2, "seed")?);
    let decl = std::fs::read_to_string(&args[3]).map_err(|e| format!("{}: {e}", args[3]))?;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let c = lattice::bcc(cells as usize, twoj as u32, &mut rng).map_err(|e| e.to_string())?;
    let fj = c.forces();
    let rms = (fj.iter().map(|f| f * f).sum::<f64>() / c.ntotal as f64).sqrt();
    eprintln!(
        "snap-refgen: {} atoms x {} neighbours, 2J = {twoj}, seed {seed}, RMS |F| {rms:.6e} eV/A",
        c.nlocal, c.nnbr
    );
    let head = format!(
        "// Skylight's synthetic snap problem: BCC W, {cells}^3 cells, 2J = {twoj}, seed {seed}.\n\
         // Written by Skylight's baselines/snap/refgen; fj from Skylight's CPU f64 reference.\n"
    );
    write(&args[4], &header(&head, &decl, &c, &fj))?;
    if let Some(path) = args.get(5) {
        write(path, &json(&c, &fj))?;
    }
    Ok(())
}

fn write(path: &str, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
}

/// Values one per line (shortest text that reads back exactly).
fn list<T: std::fmt::Debug>(v: impl IntoIterator<Item = T>) -> String {
    v.into_iter().fold(String::new(), |mut s, x| {
        let _ = writeln!(s, "    {x:?},");
        s
    })
}

fn header(head: &str, decl: &str, c: &Config, fj: &[f64]) -> String {
    let ncoeff = c.coeff.len() - 1;
    let rij = c.rij.iter().flatten();
    format!(
        "{head}\n#define REFDATA_NLOCAL {}\n#define REFDATA_NGHOST 0\n\
         #define REFDATA_NTOTAL (REFDATA_NLOCAL + REFDATA_NGHOST)\n\
         #define REFDATA_NINSIDE {}\n#define REFDATA_NCOEFF {ncoeff}\n\n{}\n\n\
         REFDATA refdata = {{\n  .ninside = REFDATA_NINSIDE,\n  .twojmax = {},\n\
         \x20 .ncoeff = REFDATA_NCOEFF,\n  .nlocal = REFDATA_NLOCAL,\n  .nghost = REFDATA_NGHOST,\n\
         \x20 .rcutfac = {:?},\n  .coeff = {{\n{}  }},\n  .idlist = {{\n{}  }},\n\
         \x20 .jlist = {{\n{}  }},\n  .rij = {{\n{}  }},\n  .fj = {{\n{}  }},\n}};\n",
        c.nlocal,
        c.nnbr,
        decl.trim(),
        c.twojmax,
        c.rcut,
        list(&c.coeff),
        list(1..=c.nlocal),
        list(&c.jlist),
        list(rij),
        list(fj),
    )
}

fn json(c: &Config, fj: &[f64]) -> String {
    let arr = |v: Vec<String>| format!("[{}]", v.join(","));
    let reals = |v: &mut dyn Iterator<Item = &f64>| arr(v.map(|x| format!("{x:?}")).collect());
    format!(
        "{{\"ninside\": {}, \"twojmax\": {}, \"ncoeff\": {}, \"nlocal\": {}, \"nghost\": 0, \"rcutfac\": {:?},\n\
         \"coeff\": {},\n\"jlist\": {},\n\"rij\": {},\n\"fj\": {}}}\n",
        c.nnbr,
        c.twojmax,
        c.coeff.len() - 1,
        c.nlocal,
        c.rcut,
        reals(&mut c.coeff.iter()),
        arr(c.jlist.iter().map(u32::to_string).collect()),
        reals(&mut c.rij.iter().flatten()),
        reals(&mut fj.iter()),
    )
}
