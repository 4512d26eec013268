//! WGSL for one site's work, generated from the D3Q19 velocity set as
//! straight-line code: the 19 distributions are named values (`f0`..`f18`),
//! never an indexed private array, which GPU compilers may leave in local
//! memory when they do not unroll (seen for su3 on NVIDIA). The generated
//! functions are included with `shaders/lbm/lbm.wgsl` and `tdp_index`.
//! Every field access names its component statically, so a field split by
//! component group ([`Groups`]) reads each from the buffer that holds it.

use std::fmt::Write;

use super::d3q19::{C, NVEL, weight_class};
use crate::layout::Groups;

/// FLOPs of one site's collision as the generated code performs them (and
/// as the host reference formulates them): density 18 adds, momentum 27
/// adds/subtracts, 1 division, the shifted velocity 9, u.u 5, the common
/// equilibrium factor 2, three weighted densities 3; then per velocity the
/// projection c.u (1 add for edge velocities, none otherwise), the
/// equilibrium polynomial (2 FMAs and a multiply, 5) and the relaxation (a
/// subtract and an FMA, 3); the rest velocity needs only the multiply and the
/// relaxation (4).
pub fn collide_flops() -> u64 {
    let per_q: u64 = C
        .iter()
        .map(|c| match c.iter().filter(|v| **v != 0).count() {
            0 => 4,
            1 => 8,
            _ => 9,
        })
        .sum();
    18 + 27 + 1 + 9 + 5 + 2 + 3 + per_q
}

/// `c.u` of velocity `q` as a WGSL expression over `ux`, `uy`, `uz`.
fn projection(q: usize) -> String {
    let names = ["ux", "uy", "uz"];
    let terms: Vec<(i32, &str)> = (0..3)
        .filter(|&d| C[q][d] != 0)
        .map(|d| (C[q][d], names[d]))
        .collect();
    match terms.as_slice() {
        [] => "r_zero()".into(),
        [(1, a)] => a.to_string(),
        [(_, a)] => format!("r_neg({a})"),
        [(1, a), (1, b)] => format!("r_add({a}, {b})"),
        [(1, a), (_, b)] => format!("r_sub({a}, {b})"),
        [(_, a), (1, b)] => format!("r_sub({b}, {a})"),
        [(_, a), (_, b)] => format!("r_neg(r_add({a}, {b}))"),
        _ => unreachable!("D3Q19 velocities have at most two non-zero components"),
    }
}

/// Signed sum of the distributions along axis `d` (momentum component).
fn momentum(d: usize) -> String {
    let mut expr = String::new();
    for (q, v) in C.iter().enumerate() {
        let c = v[d];
        if c == 0 {
            continue;
        }
        expr = match (expr.is_empty(), c > 0) {
            (true, true) => format!("f{q}"),
            (true, false) => format!("r_neg(f{q})"),
            (false, true) => format!("r_add({expr}, f{q})"),
            (false, false) => format!("r_sub({expr}, f{q})"),
        };
    }
    expr
}

/// The two fields' buffers (`src_g` read, `dst_g` written, as `g`
/// splits them) and the coefficients after them.
pub fn bindings(g: &Groups) -> String {
    let n = g.count();
    let mut s = g.declare("src", "read", 0);
    s.push_str(&g.declare("dst", "read_write", n));
    let _ = writeln!(
        s,
        "@group(0) @binding({}) var<storage, read> coef: array<RealStore>;",
        2 * n
    );
    s
}

/// `lbm_relax(site, f0..f18)`: BGK collision of one site's distributions
/// (already fetched) written to `dst` at `site`.
fn relax(g: &Groups) -> String {
    let mut s = String::new();
    let params: Vec<String> = (0..NVEL).map(|q| format!("f{q}: Real")).collect();
    let _ = writeln!(s, "fn lbm_relax(site: u32, {}) {{", params.join(", "));
    let mut rho = "f0".to_string();
    for q in 1..NVEL {
        rho = format!("r_add({rho}, f{q})");
    }
    let _ = writeln!(s, "    let rho = {rho};");
    for (d, axis) in ["x", "y", "z"].iter().enumerate() {
        let _ = writeln!(s, "    let j{axis} = {};", momentum(d));
    }
    s.push_str(
        "    let omega = r_load(coef[0]);
    let tau = r_load(coef[1]);
    let inv_rho = r_div(r_one(), rho);
    let ux = r_mul(r_fma(tau, r_load(coef[2]), jx), inv_rho);
    let uy = r_mul(r_fma(tau, r_load(coef[3]), jy), inv_rho);
    let uz = r_mul(r_fma(tau, r_load(coef[4]), jz), inv_rho);
    let usq = r_fma(ux, ux, r_fma(uy, uy, r_mul(uz, uz)));
    let base = r_fma(r_from_f32(-1.5), usq, r_one());
    let wr0 = r_mul(r_load(coef[5]), rho);
    let wr1 = r_mul(r_load(coef[6]), rho);
    let wr2 = r_mul(r_load(coef[7]), rho);
",
    );
    for q in 0..NVEL {
        let w = weight_class(q);
        let feq = if q == 0 {
            format!("r_mul(wr{w}, base)")
        } else {
            let _ = writeln!(s, "    let cu{q} = {};", projection(q));
            format!(
                "r_mul(wr{w}, r_fma(cu{q}, r_fma(r_from_f32(4.5), cu{q}, r_from_f32(3.0)), base))"
            )
        };
        let _ = writeln!(
            s,
            "    {} = r_store(r_fma(omega, r_sub({feq}, f{q}), f{q}));",
            g.at("dst", "site", q as u32)
        );
    }
    s.push_str("}\n");
    s
}

/// Upwind neighbour coordinates of `site` (`x - 1`, `x + 1`, ... periodic).
fn neighbours() -> &'static str {
    "    let x = site % NX;
    let y = (site / NX) % NY;
    let z = site / (NX * NY);
    let xm = select(x - 1u, NX - 1u, x == 0u);
    let xp = select(x + 1u, 0u, x == NX - 1u);
    let ym = select(y - 1u, NY - 1u, y == 0u);
    let yp = select(y + 1u, 0u, y == NY - 1u);
    let zm = select(z - 1u, NZ - 1u, z == 0u);
    let zp = select(z + 1u, 0u, z == NZ - 1u);
"
}

/// Coordinate `d` (named `v`) of the site velocity `q` is pulled from:
/// `v - c_q[d]`, one of the names `neighbours` defines.
fn upwind_coord(q: usize, d: usize, v: &str) -> String {
    match C[q][d] {
        1 => format!("{v}m"),
        -1 => format!("{v}p"),
        _ => v.to_string(),
    }
}

/// The site velocity `q` is pulled from (`x - c_q`), as a WGSL expression.
fn upwind(q: usize) -> String {
    format!("{} + NX * ({})", upwind_coord(q, 0, "x"), upwind_yz(q))
}

/// `y - c_y + NY * (z - c_z)` of velocity `q`'s upwind site.
fn upwind_yz(q: usize) -> String {
    format!(
        "{} + NY * {}",
        upwind_coord(q, 1, "y"),
        upwind_coord(q, 2, "z")
    )
}

/// The per-site functions every entry point of `lbm.wgsl` calls:
/// `lbm_collide_at`, `lbm_propagate_at` and `lbm_fused_at`.
pub fn site_functions(g: &Groups) -> String {
    let mut s = relax(g);
    s.push_str("fn lbm_collide_at(site: u32) {\n");
    for q in 0..NVEL {
        let _ = writeln!(
            s,
            "    let f{q} = r_load({});",
            g.at("src", "site", q as u32)
        );
    }
    let _ = writeln!(s, "    lbm_relax(site, {});\n}}", relax_args());
    s.push_str(&propagating(g, "", "site: u32", pull_load));
    s
}

/// `f0, f1, ..., f18`: the arguments of `lbm_relax` after `site`.
fn relax_args() -> String {
    let args: Vec<String> = (0..NVEL).map(|q| format!("f{q}")).collect();
    args.join(", ")
}

/// `lbm_propagate{suffix}_at` and `lbm_fused{suffix}_at` (parameters
/// `params`) over the values `f0`..`f18` that `pull` defines, given how
/// each is loaded (nothing, for propagate's raw copy; `r_load` for fused).
/// Every load comes before the first store: the compiler cannot tell that
/// dst and src are different buffers, so a load after a store would wait
/// for it, and each copy would go one at a time.
fn propagating(
    g: &Groups,
    suffix: &str,
    params: &str,
    pull: fn(&Groups, &str) -> String,
) -> String {
    let mut s = format!("fn lbm_propagate{suffix}_at({params}) {{\n");
    s.push_str(&pull(g, ""));
    for q in 0..NVEL {
        let _ = writeln!(s, "    {} = f{q};", g.at("dst", "site", q as u32));
    }
    s.push_str("}\n");
    let _ = writeln!(s, "fn lbm_fused{suffix}_at({params}) {{");
    s.push_str(&pull(g, "r_load"));
    let _ = writeln!(s, "    lbm_relax(site, {});\n}}", relax_args());
    s
}

/// `let f{q} = load(...)` of velocity `q` from its upwind site.
fn load_upwind(g: &Groups, q: usize, load: &str) -> String {
    format!(
        "    let f{q} = {load}({});\n",
        g.at("src", &upwind(q), q as u32)
    )
}

/// The load form: `f0`..`f18` of `site`, each from its upwind site.
fn pull_load(g: &Groups, load: &str) -> String {
    let mut s = neighbours().to_string();
    for q in 0..NVEL {
        s.push_str(&load_upwind(g, q, load));
    }
    s
}

/// Velocities with an x component: the rows form shifts them through
/// workgroup memory.
fn x_moving() -> impl Iterator<Item = usize> {
    (0..NVEL).filter(|&q| C[q][0] != 0)
}

/// The site of velocity `q`'s upwind row at this site's x (`x, y - c_y,
/// z - c_z`), as a WGSL expression: loaded in place by the rows form.
fn upwind_row(q: usize) -> String {
    format!("x + NX * ({})", upwind_yz(q))
}

/// Loads `f0`..`f18` of `site` pulled from the upwind sites in the rows
/// form, each through `load` (`r_load` or nothing, for a raw copy). The
/// workgroup holds whole x rows (WG a multiple of NX, invocation `lid` at
/// x = lid % NX), so every load is of this invocation's own x, as
/// aligned and coalesced as the collision's: a velocity that moves along x
/// is loaded from its upwind row here and read from the invocation at x -
/// c_x through workgroup memory. The velocities that do not move along x
/// are loaded after the barrier: on the H100 that was up to 1.5% faster in
/// soa than loading them before it, and the same in aosoa-32
/// (docs/notebook/benchmarks.md, 2026-11-27 j). Called by the whole workgroup (barrier).
fn pull_rows(g: &Groups, load: &str) -> String {
    let mut s = neighbours().to_string();
    s.push_str(
        "    let lm = select(lid - 1u, lid + (NX - 1u), x == 0u);
    let lp = select(lid + 1u, lid - (NX - 1u), x == NX - 1u);
",
    );
    for (j, q) in x_moving().enumerate() {
        let _ = writeln!(
            s,
            "    lbm_row[{j}][lid] = {};",
            g.at("src", &upwind_row(q), q as u32)
        );
    }
    s.push_str("    workgroupBarrier();\n");
    for q in (0..NVEL).filter(|&q| C[q][0] == 0) {
        s.push_str(&load_upwind(g, q, load));
    }
    for (j, q) in x_moving().enumerate() {
        let from = if C[q][0] == 1 { "lm" } else { "lp" };
        let _ = writeln!(s, "    let f{q} = {load}(lbm_row[{j}][{from}]);");
    }
    s
}

/// Workgroup reals of the rows form at workgroup size `wg`: a row's worth
/// for every velocity that moves along x.
pub fn rows_workgroup_reals(wg: u32) -> u64 {
    x_moving().count() as u64 * u64::from(wg)
}

/// The rows form of the propagating kernels (see [`pull_rows`]):
/// `lbm_propagate_rows_at(site, lid)` and `lbm_fused_rows_at(site, lid)`,
/// with their workgroup rows. Needs `lbm_relax` from [`site_functions`].
pub fn rows_functions(g: &Groups) -> String {
    let mut s = format!(
        "var<workgroup> lbm_row: array<array<RealStore, WG>, {}>;\n",
        x_moving().count()
    );
    s.push_str(&propagating(g, "_rows", "site: u32, lid: u32", pull_rows));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{Layout, LayoutName};

    /// One buffer a field: the generated code names `src_0` and `dst_0`.
    fn whole() -> Groups {
        Groups::whole(Layout::new(LayoutName::Soa, 512, NVEL as u32))
    }

    #[test]
    fn flop_count_matches_the_formulation() {
        // 65 for the moments and factors, 4 + 6 x 8 + 12 x 9 per velocity.
        assert_eq!(collide_flops(), 225);
    }

    #[test]
    fn generated_code_names_every_velocity_once_per_use() {
        let s = site_functions(&whole());
        for q in 0..NVEL {
            assert!(s.contains(&format!(
                "let f{q} = r_load(src_0[tdp_index(site, {q}u, 19u)]"
            )));
        }
        assert_eq!(projection(8), "r_neg(r_add(ux, uy))");
        assert_eq!(projection(9), "r_sub(ux, uy)");
        assert_eq!(upwind(1), "xm + NX * (y + NY * z)");
    }

    #[test]
    fn the_rows_form_loads_in_place_and_shifts_through_the_workgroup() {
        let s = rows_functions(&whole());
        assert_eq!(s.matches("workgroupBarrier()").count(), 2);
        // Velocity 1 moves +x: its upwind row is this site's, read from x - 1.
        assert!(s.contains("lbm_row[0][lid] = src_0[tdp_index(x + NX * (y + NY * z), 1u, 19u)];"));
        assert!(s.contains("let f1 = (lbm_row[0][lm]);"));
        assert!(s.contains("let f1 = r_load(lbm_row[0][lm]);"));
        // Velocity 3 moves +y only: loaded from its upwind site as before.
        assert!(s.contains("let f3 = (src_0[tdp_index(x + NX * (ym + NY * z), 3u, 19u)]);"));
        assert_eq!(rows_workgroup_reals(128), 10 * 128);
    }

    #[test]
    fn a_split_field_reads_and_writes_each_velocity_in_its_group() {
        let g = Groups {
            layout: Layout::new(LayoutName::Aosoa8, 512, NVEL as u32),
            per: 4,
        };
        let s = site_functions(&g);
        // Velocity 13 is velocity 1 of group 3 (of 4 velocities).
        assert!(s.contains("let f13 = r_load(src_3[tdp_index(site, 1u, 4u)]);"));
        assert!(s.contains("dst_4[tdp_index(site, 2u, 3u)] = r_store("));
        let b = bindings(&g);
        assert!(b.contains("@binding(9) var<storage, read_write> dst_4"));
        assert!(b.contains("@binding(10) var<storage, read> coef"));
    }
}
