//! The spin projections and reconstructions of every direction,
//! straight-line from [`GAMMA`] with the operator's sign (`isign`: 1 for D,
//! -1 for D^dagger), as WGSL for the kernel modules ([`super::codegen`]).

use std::fmt::Write;

use super::wilson::{GAMMA, Phase};

/// `a + phase b` on colour vectors, as a WGSL expression.
fn phase_term(a: &str, phase: Phase, b: &str) -> String {
    match phase {
        Phase::One => format!("v_add({a}, {b})"),
        Phase::MinusOne => format!("v_sub({a}, {b})"),
        Phase::I => format!("v_add({a}, v_i({b}))"),
        Phase::MinusI => format!("v_sub({a}, v_i({b}))"),
    }
}

/// `proj_{fwd,bwd}_mu(p) -> Half` and `recon_{fwd,bwd}_mu(acc, h) -> Spinor`:
/// the forward hop projects with `1 - isign gamma_mu`, the backward one with
/// `1 + isign gamma_mu`. The upper spins of `(1 + sigma gamma) psi` are
/// `psi_s + sigma g_s psi_{c(s)}`; the lower ones are `sigma g_s h_{c(s)}`
/// (`sigma gamma` leaves the projected spinor unchanged).
pub fn spin_functions(isign: i32) -> String {
    let mut s = String::new();
    for (dir, sigma) in [("fwd", -isign), ("bwd", isign)] {
        for (mu, row) in GAMMA.iter().enumerate() {
            let ph = |spin: usize| {
                let p = row[spin].1;
                if sigma < 0 { -p } else { p }
            };
            let _ = writeln!(
                s,
                "fn proj_{dir}_{mu}(p: Spinor) -> Half {{\n    return Half({}, {});\n}}",
                phase_term("p.s0", ph(0), &format!("p.s{}", row[0].0)),
                phase_term("p.s1", ph(1), &format!("p.s{}", row[1].0)),
            );
            let _ = writeln!(
                s,
                "fn recon_{dir}_{mu}(acc: Spinor, h: Half) -> Spinor {{\n    return Spinor(v_add(acc.s0, h.h0), v_add(acc.s1, h.h1), {}, {});\n}}",
                phase_term("acc.s2", ph(2), &format!("h.h{}", row[2].0)),
                phase_term("acc.s3", ph(3), &format!("h.h{}", row[3].0)),
            );
        }
        // Kernels loop over mu (a loop with the heavy df64 link algebra in
        // its body once compiles several times faster on LLVM-based drivers
        // than four unrolled copies); the switch is uniform across invocations.
        for (kind, sig, args) in [
            ("proj", "p: Spinor, mu: u32) -> Half", "p"),
            (
                "recon",
                "acc: Spinor, h: Half, mu: u32) -> Spinor",
                "acc, h",
            ),
        ] {
            let _ = writeln!(s, "fn {kind}_{dir}({sig} {{\n    switch mu {{");
            for mu in 0..3 {
                let _ = writeln!(
                    s,
                    "        case {mu}u: {{ return {kind}_{dir}_{mu}({args}); }}"
                );
            }
            let _ = writeln!(
                s,
                "        default: {{ return {kind}_{dir}_3({args}); }}\n    }}\n}}"
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projections_follow_the_gamma_table() {
        let s = spin_functions(1);
        // gamma_x row 0 is i at column 3: the forward hop (1 - gamma_x)
        // subtracts i psi_3, the backward one adds it.
        assert!(s.contains(
            "fn proj_fwd_0(p: Spinor) -> Half {\n    return Half(v_sub(p.s0, v_i(p.s3))"
        ));
        assert!(s.contains(
            "fn proj_bwd_0(p: Spinor) -> Half {\n    return Half(v_add(p.s0, v_i(p.s3))"
        ));
        // D^dagger swaps them.
        assert!(spin_functions(-1).contains(
            "fn proj_fwd_0(p: Spinor) -> Half {\n    return Half(v_add(p.s0, v_i(p.s3))"
        ));
    }
}
