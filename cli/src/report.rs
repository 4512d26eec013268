//! Human-readable tables on stdout.

use std::collections::{BTreeMap, BTreeSet};

use skylight_core::app::App;
use skylight_core::gpu::AdapterEntry;
use skylight_core::gpu::caps::bytes;
use skylight_core::record::{ResultRecord, Tuning};
use skylight_core::roofline::{Ceiling, MemoryLevel, Roofline, native_ceilings, size_label};
use skylight_core::runner::Outcome;

/// `skylight list`: each adapter with its driver, the features the suite
/// uses that it has, the limits that decide sizes and splits, and the
/// memory of the device (where its backend says) and of the host (where
/// the system says), as a result records them ([`skylight_core::gpu::PlatformInfo::offers`]).
pub fn print_adapters(adapters: &[AdapterEntry]) {
    if adapters.is_empty() {
        println!(
            "no adapter with compute shaders found (on Debian: apt-get install mesa-vulkan-drivers)"
        );
        return;
    }
    for a in adapters {
        let i = &a.info;
        println!("[{}] {}", i.index.unwrap_or(0), i.name);
        println!(
            "    backend {}, type {}, driver {} {}",
            i.backend, i.device_type, i.driver, i.driver_info
        );
        let Some(offers) = &i.offers else {
            continue;
        };
        let features = match offers.features.as_slice() {
            [] => "none".to_string(),
            f => f.join(" "),
        };
        println!("    features: {features}");
        let host = a.caps.host_memory.map_or("not reported".into(), bytes);
        let mut rows = offers.limits();
        rows.push(("host memory available", host));
        let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        for (name, value) in rows {
            println!("    {name:<width$}  {value}");
        }
    }
}

/// `skylight apps`.
pub fn print_apps(apps: &[&dyn App]) {
    for a in apps {
        println!("{:<8} {}", a.name(), a.about());
        let tunable = a.tunable();
        for p in a.params() {
            println!("    {:<10} {} (default: {})", p.name, p.help, p.default);
            if let Some((_, values)) = tunable.iter().find(|(t, _)| *t == p.name) {
                println!("    {:<10} tunable: `skylight tune` tries {values}", "");
            }
        }
    }
}

pub(crate) fn time(s: f64) -> String {
    match s {
        s if s >= 1.0 => format!("{s:.3} s"),
        s if s >= 1e-3 => format!("{:.3} ms", s * 1e3),
        s => format!("{:.2} us", s * 1e6),
    }
}

/// The column header of [`row`].
pub fn header() -> String {
    format!(
        "{:<24} {:<22} {:<5} {:>11} {:>10} {:>9} {:>7}  {:<11} {:<6} check",
        "app/kernel", "variant", "prec", "median", "GFLOP/s", "GB/s", "AI", "timing", "valid"
    )
}

/// How `r` was timed, with its runs a sample where a sample spans several
/// (`wall x12`: the host clock around 12 back-to-back runs).
fn timing(r: &ResultRecord) -> String {
    match r.runs_per_sample {
        1 => r.timing.name().to_string(),
        n => format!("{} x{n}", r.timing.name()),
    }
}

/// One line for a case: its figures, or why it is unsupported or failed.
pub fn row(o: &Outcome) -> String {
    let c = o.case();
    let name = format!("{}/{}", c.app, c.kernel);
    match o {
        Outcome::Done(r) => format!(
            "{:<24} {:<22} {:<5} {:>11} {:>10.1} {:>9.1} {:>7.3}  {:<11} {:<6} {}{}",
            name,
            c.variant,
            c.precision,
            time(r.stats.median),
            r.gflops,
            r.gbps,
            r.arithmetic_intensity,
            timing(r),
            r.validation.status().label(),
            match r.tuning {
                Tuning::Tuned(_) => "[tuned] ",
                Tuning::Defaults => "",
            },
            r.validation.detail
        ),
        Outcome::Unsupported { reason, .. } => {
            format!(
                "{:<24} {:<22} {:<5} unsupported: {reason}",
                name, c.variant, c.precision
            )
        }
        Outcome::Failed { error, .. } => {
            format!(
                "{:<24} {:<22} {:<5} ERROR: {error}",
                name, c.variant, c.precision
            )
        }
    }
}

/// The grind time (ms per atom-step, from the median) of a record whose
/// app counts the atom-steps of one run.
pub fn grind_ms(r: &ResultRecord) -> Option<f64> {
    r.metrics
        .get("atom_steps_per_run")
        .filter(|&&n| n > 0.0)
        .map(|n| r.stats.median * 1e3 / n)
}

/// `r` with its grind time added to the metrics, for the result file.
pub fn with_grind_time(mut r: ResultRecord) -> ResultRecord {
    if let Some(g) = grind_ms(&r) {
        r.metrics.insert("grind_ms_per_atom_step".into(), g);
    }
    r
}

/// Where a scale-out run's time went, as one line under its row: `None`
/// for a single-device run.
pub fn split_line(o: &Outcome) -> Option<String> {
    let Outcome::Done(r) = o else { return None };
    let s = r.scale.as_ref()?;
    let t = s.split;
    let phases: Vec<String> = t
        .breakdown()
        .iter()
        .map(|(name, v)| format!("{name} {:.3}", v * 1e3))
        .collect();
    Some(format!(
        "  {} ranks, {} scaling ({}, halos through {}), ms per run: {}; communication {:.0}%",
        s.ranks,
        s.scaling.name(),
        s.decomposition.label(),
        match s.halos {
            skylight_core::scale::Halos::Shared => "shared memory",
            _ => "MPI",
        },
        phases.join(", "),
        100.0 * t.communication() / t.total().max(f64::MIN_POSITIVE)
    ))
}

/// One line per app-specific metric of a finished case, under its row. A
/// force deviation reads as TestSNAP prints it; a per-run atom-step count
/// also gives the grind time.
pub fn metric_lines(o: &Outcome) -> Vec<String> {
    let Outcome::Done(r) = o else {
        return Vec::new();
    };
    let mut lines: Vec<String> = r
        .metrics
        .iter()
        .map(|(name, v)| match name.as_str() {
            "rms_force_deviation" => format!("    RMS |F| deviation: {v:.6e} eV/A"),
            _ => format!("    {name}: {v}"),
        })
        .collect();
    if let Some(g) = grind_ms(r) {
        lines.push(format!("    grind time: {g:.6e} ms/atom-step"));
    }
    lines
}

/// The parameter a sweep table spreads over its columns: the workgroup size
/// when it varies, else another numeric parameter that varies (a vector
/// length, a block size), else none.
fn sweep_column(records: &[ResultRecord]) -> Option<String> {
    let mut names: Vec<&String> = records.iter().flat_map(|r| r.case.params.keys()).collect();
    names.sort();
    names.dedup();
    let varying_numeric = |n: &&String| {
        let vals: BTreeSet<&str> = records
            .iter()
            .filter_map(|r| r.case.params.get(*n).map(String::as_str))
            .collect();
        vals.len() > 1 && vals.iter().all(|v| v.parse::<f64>().is_ok())
    };
    let numeric: Vec<&String> = names.into_iter().filter(varying_numeric).collect();
    numeric
        .iter()
        .find(|n| n.as_str() == "wg")
        .or_else(|| numeric.first())
        .map(|n| n.to_string())
}

/// The sweep table: one row per kernel, variant (less the column's part) and
/// precision, one column per value of [`sweep_column`]; GFLOP/s, or GB/s for
/// kernels without FLOPs.
pub fn print_sweep(records: &[ResultRecord]) {
    let Some(col) = sweep_column(records) else {
        println!("\nsweep: no numeric parameter varies; the table above lists every case");
        return;
    };
    let mut table: BTreeMap<String, BTreeMap<u64, f64>> = BTreeMap::new();
    let mut cols: Vec<u64> = Vec::new();
    for r in records {
        let v: u64 = r
            .case
            .params
            .get(&col)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let token = format!("{col}{v}");
        let row_variant: Vec<&str> = r.case.variant.split('/').filter(|s| *s != token).collect();
        let row = format!(
            "{} {} {}",
            r.case.kernel,
            row_variant.join("/"),
            r.case.precision
        );
        let value = if r.model.flops > 0.0 {
            r.gflops
        } else {
            r.gbps
        };
        table.entry(row).or_default().insert(v, value);
        if !cols.contains(&v) {
            cols.push(v);
        }
    }
    cols.sort_unstable();
    println!("\nsweep (GFLOP/s; GB/s for kernels without FLOPs), columns = {col}");
    print!("{:<40}", "");
    for c in &cols {
        print!("{:>10}", c);
    }
    println!();
    for (row, vals) in &table {
        print!("{row:<40}");
        for c in &cols {
            match vals.get(c) {
                Some(v) => print!("{v:>10.1}"),
                None => print!("{:>10}", "-"),
            }
        }
        println!();
    }
}

/// Ceilings, ridge points and each point's fraction of the roof.
/// A bandwidth ceiling as text: level, GB/s, what measured it and the
/// working sets its level spans.
pub fn bandwidth_line(c: &Ceiling) -> String {
    let range = c
        .working_set
        .map(|[lo, hi]| format!(", working sets {} to {}", size_label(lo), size_label(hi)))
        .unwrap_or_default();
    format!(
        "{:<6} {:>10.1} GB/s   ({}{range})",
        c.memory_level().name(),
        c.value,
        c.label
    )
}

/// Prints the ceilings the native baselines among `records` measure
/// beside Skylight's ([`native_ceilings`]), when there are any.
pub fn print_native_ceilings(r: &Roofline, records: &[ResultRecord]) {
    let native = native_ceilings(r, records);
    if !native.is_empty() {
        println!("  native baselines of the same device:");
    }
    for c in &native {
        println!("  native ceiling    {}", bandwidth_line(c));
    }
}

/// Prints the roofline: its ceilings, then each point rated at its level.
pub fn print_roofline(r: &Roofline) {
    println!("\nroofline of {}", r.platform.label());
    for c in &r.bandwidth {
        println!("  bandwidth ceiling {}", bandwidth_line(c));
    }
    let caches = r
        .levels()
        .into_iter()
        .any(|l| MemoryLevel::CACHES.contains(&l));
    if !caches {
        println!(
            "  {}",
            match r.sweep.is_empty() {
                true => "no cache levels: these records hold no `cache` read sweep",
                false =>
                    "no cache level: the read sweep never passed device memory's ceiling by 30%",
            }
        );
    }
    for c in &r.compute {
        let p = c.precision.unwrap_or(skylight_core::Precision::F32);
        println!(
            "  compute ceiling   {:>10.1} GFLOP/s   ({}), ridge at {:.2} FLOP/byte",
            c.value,
            c.label,
            r.ridge(p).unwrap_or(0.0)
        );
    }
    for p in &r.points {
        let frac = p
            .fraction_of_roof
            .map(|f| {
                let level = p.level.unwrap_or(MemoryLevel::Dram);
                format!("{:.0}% of the {level} roof", f * 100.0)
            })
            .unwrap_or_default();
        println!(
            "  point {:<10} {:<10} {:<20} {:<5} AI {:>8.3}  {:>10.1} GFLOP/s  {}",
            p.app, p.kernel, p.variant, p.precision, p.ai, p.gflops, frac
        );
    }
}
