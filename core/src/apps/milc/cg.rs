//! CG on `M^dagger M x = M^dagger b` recorded as one program: every scalar
//! stays on the GPU (alpha, beta and the convergence freeze are
//! one-invocation kernels of `cg.wgsl`), so a solve is one command buffer
//! with no readback. Each norm is reduced in the pass that writes its field
//! (`|M p|^2` as `M p` is written, since `<p, A p> = |M p|^2` for
//! `A = M^dagger M`; `|r'|^2` as `r'` is), and `x` and `p` are updated
//! together once beta is known. Per iteration, with the `fused` operator:
//! `M p` with its norm, `M^dagger (M p)`, alpha, `r' = r - alpha A p` with
//! its norm, `x += alpha p, p = r' + beta p`; with `split`, each application
//! of M is MILC's five Dslash kernels and a multiply-add (which reduces
//! the norm).

use super::codegen::{Field, slot};
use super::program::{Buffers, Program, Temps, one};
use super::reference::Setup;
use crate::error::Result;

/// How a solve applies M.
enum Apply {
    /// `m_fused`: D's hopping sum and the site's own spinor in one pass.
    Fused,
    /// MILC's five split kernels (through `Temps`) into the spinor field,
    /// then `M = src - kappa D src` as a multiply-add.
    Split(Temps, Buffers),
}

impl Apply {
    /// `dst = M src` (`isign` 1) or `M^dagger src` (-1), leaving the
    /// partials of `|dst|^2` when `norm`. Either way the halos of `src`
    /// are swapped first on a split lattice.
    fn record(
        &self,
        prog: &mut Program,
        [links, src, dst, scalars]: [&[wgpu::Buffer]; 4],
        isign: i32,
        norm: bool,
    ) -> Result<()> {
        match self {
            Apply::Fused => prog.m_fused([links, src, dst, scalars], isign, norm),
            Apply::Split(temps, d) => {
                prog.dslash(Some(temps), [links, src, d], isign)?;
                prog.axpy([d, src, dst, scalars], (slot::MINUS_KAPPA, false), norm)
            }
        }
    }
}

/// CG from x = 0, the setup's iterations (frozen once converged); returns
/// the buffers holding x and the scalars at the end.
pub(super) fn record(
    prog: &mut Program,
    [b, u]: [&[wgpu::Buffer]; 2],
    scalars: wgpu::Buffer,
    setup: &Setup,
) -> Result<Vec<(Buffers, Field)>> {
    let spinor = |prog: &Program| prog.field("milc-cg", Field::Spinor, None);
    let apply = match setup.fused {
        true => Apply::Fused,
        false => Apply::Split(prog.temps()?, spinor(prog)?),
    };
    let s = one(&scalars);
    // x and p are updated in place (each site by its own invocation);
    // r alternates, because its update reads r and writes r'.
    let (mp, ap, x, p) = (spinor(prog)?, spinor(prog)?, spinor(prog)?, spinor(prog)?);
    let r = [spinor(prog)?, spinor(prog)?];
    // r = M^dagger b with |r0|^2, p = r, x = 0.
    apply.record(prog, [u, b, &r[0], s], -1, true)?;
    prog.finish(&scalars, slot::RR)?;
    prog.scalar("cg_start", &scalars)?;
    prog.axpy([&r[0], &r[0], &p, s], (slot::ZERO, false), false)?;
    prog.zero(&x, &scalars)?;
    for k in 0..setup.iterations as usize {
        let (c, n) = (k % 2, 1 - k % 2);
        // |M p|^2, reduced as M p is written; over ranks it is summed when
        // they meet for M^dagger's swap, so alpha waits for A p.
        apply.record(prog, [u, &p, &mp, s], 1, true)?;
        prog.finish_by_next_swap(&scalars, slot::PAP)?;
        // A p = M^dagger (M p), then alpha = |r|^2 / |M p|^2.
        apply.record(prog, [u, &mp, &ap, s], -1, false)?;
        prog.scalar("cg_alpha", &scalars)?;
        // r' = r - alpha A p and |r'|^2 in one pass, then beta.
        prog.axpy([&ap, &r[c], &r[n], s], (slot::ALPHA, true), true)?;
        prog.finish(&scalars, slot::RR_NEW)?;
        prog.scalar("cg_beta", &scalars)?;
        // x += alpha p (alpha is still in its slot), p = r' + beta p.
        prog.over_sites("update_xp", 1, &[&x, &p, &r[n], s])?;
    }
    Ok(vec![(x, Field::Spinor), (vec![scalars], Field::Plain)])
}
