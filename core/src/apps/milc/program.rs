//! The recording side of a case: a program of dispatches (pipelines built
//! once per entry point and sign, bind groups made once), the operations
//! the kernels and the solve are recorded from, and the points where a
//! lattice split over ranks meets its neighbours.

use std::collections::BTreeMap;

use super::codegen::{self, Build, Field, slot};
use super::gpu::Plan;
use super::reference::Setup;
use crate::error::{Error, Result};
use crate::gpu::{Gpu, Pipeline, dispatch_shape};
use crate::scale::Part;

/// Where a rank of a lattice split over ranks must leave the recorded
/// program for its neighbours (see `dist`): before a Dslash or an
/// application of M, to fill the halo planes of the field it reads; after
/// a finished dot product or norm, to sum the scalar over the ranks.
#[derive(Clone, Debug)]
pub(super) enum Sync {
    /// Swap the halo planes of this spinor field (its buffers) for a
    /// Dslash of this sign; the dispatches this many steps on read no halo,
    /// and may run while the planes travel (a rank's interior).
    Swap(Vec<wgpu::Buffer>, i32, usize),
    /// Sum this slot of this scalar buffer over the ranks: at once, or
    /// (`true`) when the ranks meet for the next swap, nothing before that
    /// swap's unpack reading it.
    Reduce(wgpu::Buffer, u32, bool),
}

/// One recorded dispatch.
pub(super) struct Step {
    pub(super) pipe: usize,
    pub(super) group: wgpu::BindGroup,
    pub(super) dispatch: (u32, u32),
}

/// The parts of a rank's box the one-pass operator kernels run over when
/// the interior is updated during the halo swap (`scale::Part`).
#[derive(Clone, Debug)]
pub(super) struct Parts {
    /// The sites that read no halo, in one box or three (a lead, a middle
    /// and the rest: see `dist`).
    pub interior: Vec<Part>,
    /// The sites that do, in boxes.
    pub boundary: Vec<Part>,
}

/// A part, the workgroups of its dispatch, and the first partial sum they write.
type PartDispatch = (Part, (u32, u32), u32);

/// Pipelines (built once per entry point, sign and part) and the
/// dispatches using them.
pub(super) struct Program<'g> {
    pub(super) gpu: &'g Gpu,
    pub(super) build: Build,
    dispatch: (u32, u32),
    /// With the interior updated during halo swaps: the parts.
    parts: Option<Parts>,
    pub(super) pipes: Vec<Pipeline>,
    /// Entry point, sign and part (0: every site, then from 1 the
    /// interior's boxes and the boundary boxes) of each pipeline.
    keys: Vec<(&'static str, i32, usize)>,
    ops: BTreeMap<(u32, bool, u32), wgpu::Buffer>,
    /// The per-workgroup partial sums every reduction of the program
    /// shares (each is finished before the next one starts).
    partial: Option<wgpu::Buffer>,
    /// Partials the last reduction wrote: what its finish adds.
    partials_written: u32,
    pub(super) steps: Vec<Step>,
    /// With the step count before each: filled on a split lattice only.
    pub(super) syncs: Option<Vec<(usize, Sync)>>,
}

/// A field's buffers: one, or one a group of components where the field
/// is split (`Build::groups`).
pub(super) type Buffers = Vec<wgpu::Buffer>;

/// A single buffer as a field's buffers (scalars, partials).
pub(super) fn one(b: &wgpu::Buffer) -> &[wgpu::Buffer] {
    std::slice::from_ref(b)
}

/// The intermediate fields of one split Dslash.
pub(super) struct Temps {
    hf: Buffers,
    hb: Buffers,
    gf: Buffers,
    gb: Buffers,
    acc: Buffers,
}

impl<'g> Program<'g> {
    pub(super) fn new(gpu: &'g Gpu, plan: Plan, parts: Option<Parts>) -> Program<'g> {
        Program {
            gpu,
            build: plan.build,
            dispatch: plan.dispatch,
            parts,
            pipes: Vec::new(),
            keys: Vec::new(),
            ops: BTreeMap::new(),
            partial: None,
            partials_written: 0,
            steps: Vec::new(),
            syncs: (plan.build.halo[0] > 0).then(Vec::new),
        }
    }

    /// Workgroups of a dispatch over `sites` sites.
    fn dispatch_over(&self, sites: u32) -> Result<(u32, u32)> {
        let (b, caps) = (&self.build, &self.gpu.caps);
        dispatch_shape(
            u64::from(sites.div_ceil(b.vvl)),
            b.wg,
            caps.max_workgroups_per_dim,
        )
    }

    /// The parts' dispatches, interior first, each with its first partial.
    fn part_dispatches(&self) -> Result<Vec<PartDispatch>> {
        let Some(parts) = &self.parts else {
            return Ok(Vec::new());
        };
        let mut group0 = 0;
        let mut out = Vec::new();
        for &part in parts.interior.iter().chain(&parts.boundary) {
            let d = self.dispatch_over(part.count())?;
            out.push((part, d, group0));
            group0 += d.0 * d.1;
        }
        Ok(out)
    }

    pub(super) fn sync(&mut self, sync: Sync) {
        if let Some(syncs) = self.syncs.as_mut() {
            syncs.push((self.steps.len(), sync));
        }
    }

    /// A field's buffers, uploaded from logical order, or poisoned when
    /// `init` is `None`.
    pub(super) fn field(&self, label: &str, field: Field, init: Option<&[f64]>) -> Result<Buffers> {
        let p = self.build.precision;
        let g = self.build.groups(field).ok_or_else(|| {
            Error::bad_param("kernel", format!("{label}: plain reals are not a field"))
        })?;
        match init {
            Some(v) => g
                .encode(p, v, 0.0)
                .iter()
                .map(|bytes| self.gpu.storage_init(label, bytes))
                .collect(),
            None => g
                .bytes(p)
                .into_iter()
                .map(|len| self.gpu.storage_poisoned(label, len, &p.poison_pattern()))
                .collect(),
        }
    }

    pub(super) fn temps(&self) -> Result<Temps> {
        Ok(Temps {
            hf: self.field("milc-hf", Field::Half, None)?,
            hb: self.field("milc-hb", Field::Half, None)?,
            gf: self.field("milc-gf", Field::Half, None)?,
            gb: self.field("milc-gb", Field::Half, None)?,
            acc: self.field("milc-acc", Field::Spinor, None)?,
        })
    }

    /// The scalar slots: -kappa, 0 and tol^2 set, the rest poisoned.
    pub(super) fn scalars(&self, setup: &Setup) -> Result<wgpu::Buffer> {
        let mut v = vec![f64::NAN; slot::COUNT as usize];
        v[slot::MINUS_KAPPA as usize] = -setup.kappa;
        v[slot::ZERO as usize] = 0.0;
        v[slot::TOL2 as usize] = setup.tol * setup.tol;
        self.gpu
            .storage_init("milc-scalars", &self.build.precision.encode(&v))
    }

    /// The program's partial sums, one per workgroup of a per-site
    /// dispatch, or of the parts' dispatches together (made on first use).
    fn partial(&mut self) -> Result<wgpu::Buffer> {
        if let Some(b) = &self.partial {
            return Ok(b.clone());
        }
        let p = self.build.precision;
        let parted: u32 = self
            .part_dispatches()?
            .iter()
            .map(|(_, d, _)| d.0 * d.1)
            .sum();
        let groups = u64::from((self.dispatch.0 * self.dispatch.1).max(parted));
        let b = self.gpu.storage_poisoned(
            "milc-partial",
            groups * p.real_bytes(),
            &p.poison_pattern(),
        )?;
        self.partial = Some(b.clone());
        Ok(b)
    }

    /// The pipeline of `entry` with the sign `isign`, over part `part`
    /// (0: every site; else `(index, part, first partial)`).
    fn pipe(
        &mut self,
        entry: &'static str,
        isign: i32,
        part: Option<(usize, Part, u32)>,
    ) -> Result<usize> {
        let m = codegen::module_of(entry)
            .ok_or_else(|| Error::bad_param("kernel", format!("no entry point `{entry}`")))?;
        let isign = if m.spin { isign } else { 1 };
        let index = part.map_or(0, |p| p.0);
        if let Some(i) = self.keys.iter().position(|k| *k == (entry, isign, index)) {
            return Ok(i);
        }
        let binds = self.build.binds(m);
        let build = match part {
            Some((_, part, group0)) => Build {
                part: (part, group0),
                ..self.build
            },
            None => self.build,
        };
        let spec = codegen::spec(m, &build, isign);
        self.pipes.push(self.gpu.pipeline(&spec, entry, &binds)?);
        self.keys.push((entry, isign, index));
        Ok(self.pipes.len() - 1)
    }

    fn push(
        &mut self,
        entry: &'static str,
        isign: i32,
        buffers: &[&[wgpu::Buffer]],
        dispatch: (u32, u32),
    ) -> Result<()> {
        self.push_part(entry, isign, buffers, dispatch, None)
    }

    /// Each binding's buffers of `entry`'s module, in binding order: a
    /// field's groups, or one buffer standing in for every group of a
    /// binding the entry point never reads (`zero` binds the scalars as `x`).
    fn expand<'b>(
        &self,
        entry: &str,
        buffers: &[&'b [wgpu::Buffer]],
    ) -> Result<Vec<&'b wgpu::Buffer>> {
        let m = codegen::module_of(entry)
            .ok_or_else(|| Error::bad_param("kernel", format!("no entry point `{entry}`")))?;
        let mut out = Vec::new();
        for (&(name, field, _), &bufs) in m.binds.iter().zip(buffers) {
            let count = self.build.count(field) as usize;
            match bufs.len() {
                n if n == count => out.extend(bufs),
                1 => out.extend(std::iter::repeat_n(&bufs[0], count)),
                n => {
                    return Err(Error::Device(format!(
                        "milc/{entry}: `{name}` takes {count} buffers, given {n}"
                    )));
                }
            }
        }
        Ok(out)
    }

    fn push_part(
        &mut self,
        entry: &'static str,
        isign: i32,
        buffers: &[&[wgpu::Buffer]],
        dispatch: (u32, u32),
        part: Option<(usize, Part, u32)>,
    ) -> Result<()> {
        let pipe = self.pipe(entry, isign, part)?;
        let expanded = self.expand(entry, buffers)?;
        let group = self.gpu.bind(&self.pipes[pipe], &expanded);
        self.steps.push(Step {
            pipe,
            group,
            dispatch,
        });
        Ok(())
    }

    /// A kernel over every site, or a site-local one (`own` module) over
    /// this rank's own.
    pub(super) fn over_sites(
        &mut self,
        entry: &'static str,
        isign: i32,
        buffers: &[&[wgpu::Buffer]],
    ) -> Result<()> {
        let dispatch = self.dispatch_of(entry)?;
        self.push(entry, isign, buffers, dispatch)
    }

    /// The workgroups [`Program::over_sites`] dispatches for `entry`.
    fn dispatch_of(&self, entry: &str) -> Result<(u32, u32)> {
        match codegen::module_of(entry).is_some_and(|m| m.own) {
            true => self.dispatch_over(self.build.own.count()),
            false => Ok(self.dispatch),
        }
    }

    /// The uniform selecting scalar `slot` (negated or not), and for a
    /// finish the number of partials to add.
    fn op(&mut self, slot: u32, negate: bool, count: u32) -> wgpu::Buffer {
        let gpu = self.gpu;
        self.ops
            .entry((slot, negate, count))
            .or_insert_with(|| {
                gpu.uniform(
                    "milc-op",
                    bytemuck::cast_slice(&[slot, u32::from(negate), count, 0]),
                )
            })
            .clone()
    }

    /// A one-pass operator kernel (`hop` module) reading `src` through its
    /// halos: over every site after the swap, or with parts the interior
    /// during the swap and the boundary boxes after it. Its partials (when
    /// it reduces) are the last reduction's.
    fn hop(
        &mut self,
        entry: &'static str,
        isign: i32,
        buffers: &[&[wgpu::Buffer]],
        src: &[wgpu::Buffer],
    ) -> Result<()> {
        let parts = self.part_dispatches()?;
        let interior = self.parts.as_ref().map_or(0, |p| p.interior.len());
        self.sync(Sync::Swap(src.to_vec(), isign, interior));
        if parts.is_empty() {
            self.partials_written = self.dispatch.0 * self.dispatch.1;
            return self.over_sites(entry, isign, buffers);
        }
        for (index, &(part, dispatch, group0)) in parts.iter().enumerate() {
            self.push_part(
                entry,
                isign,
                buffers,
                dispatch,
                Some((index + 1, part, group0)),
            )?;
            self.partials_written = group0 + dispatch.0 * dispatch.1;
        }
        Ok(())
    }

    /// `dst = D src` (`isign` 1) or `D^dagger src` (-1), as MILC splits it
    /// through the intermediates `split`, or in one kernel without them.
    pub(super) fn dslash(
        &mut self,
        split: Option<&Temps>,
        [links, src, dst]: [&[wgpu::Buffer]; 3],
        isign: i32,
    ) -> Result<()> {
        let Some(t) = split else {
            return self.hop("dslash_fused", isign, &[src, links, dst], src);
        };
        self.sync(Sync::Swap(src.to_vec(), isign, 0));
        self.over_sites("extract", isign, &[src, &t.hf])?;
        self.over_sites("extract_mul", isign, &[src, links, &t.hb])?;
        self.over_sites("shift", isign, &[&t.hf, &t.hb, &t.gf, &t.gb])?;
        self.over_sites("insert_mul", isign, &[&t.gf, links, &t.acc])?;
        self.over_sites("insert", isign, &[&t.gb, &t.acc, dst])
    }

    /// `dst = M src` (`isign` 1) or `M^dagger src` (-1) in one kernel
    /// (`m_fused.wgsl`), leaving the partials of `|dst|^2` when `norm`.
    pub(super) fn m_fused(
        &mut self,
        [links, src, dst, scalars]: [&[wgpu::Buffer]; 4],
        isign: i32,
        norm: bool,
    ) -> Result<()> {
        let partial = self.partial()?;
        let entry = if norm { "m_fused_norm" } else { "m_fused" };
        self.hop(
            entry,
            isign,
            &[src, links, dst, scalars, one(&partial)],
            src,
        )
    }

    /// `out = y + s x` with `s` the scalar in `slot` (negated if asked),
    /// leaving the partials of `|out|^2` when `norm`.
    pub(super) fn axpy(
        &mut self,
        [x, y, out, scalars]: [&[wgpu::Buffer]; 4],
        (slot, negate): (u32, bool),
        norm: bool,
    ) -> Result<()> {
        let op = self.op(slot, negate, 0);
        let partial = self.partial()?;
        let entry = if norm { "axpy_norm" } else { "axpy" };
        let d = self.dispatch_of(entry)?;
        self.partials_written = d.0 * d.1;
        self.over_sites(entry, 1, &[x, y, out, scalars, one(&op), one(&partial)])
    }

    /// `out = 0`.
    pub(super) fn zero(&mut self, out: &[wgpu::Buffer], scalars: &wgpu::Buffer) -> Result<()> {
        // The fill binds `out` alone; the other bindings take buffers it never reads.
        let (op, partial, s) = (self.op(0, false, 0), self.partial()?, one(scalars));
        self.over_sites("zero", 1, &[s, s, out, s, one(&op), one(&partial)])
    }

    /// `scalars[slot] = Re <a, b>`: per-workgroup partials, then [`Program::finish`].
    pub(super) fn dot(
        &mut self,
        [a, b]: [&[wgpu::Buffer]; 2],
        scalars: &wgpu::Buffer,
        slot: u32,
    ) -> Result<()> {
        let (partial, d) = (self.partial()?, self.dispatch_of("dot")?);
        self.partials_written = d.0 * d.1;
        self.over_sites("dot", 1, &[a, b, one(&partial)])?;
        self.finish(scalars, slot)
    }

    /// `scalars[slot]` = the sum of the partials the last reduction left
    /// (one workgroup adds them), then summed over the ranks.
    pub(super) fn finish(&mut self, scalars: &wgpu::Buffer, slot: u32) -> Result<()> {
        self.finish_summed(scalars, slot, false)
    }

    /// [`Program::finish`], summed over the ranks when they meet for the
    /// next swap (so not a meeting of its own): nothing recorded before
    /// that swap's halo is filled may read the slot.
    pub(super) fn finish_by_next_swap(&mut self, scalars: &wgpu::Buffer, slot: u32) -> Result<()> {
        self.finish_summed(scalars, slot, true)
    }

    fn finish_summed(&mut self, scalars: &wgpu::Buffer, slot: u32, later: bool) -> Result<()> {
        let (partial, op) = (self.partial()?, self.op(slot, false, self.partials_written));
        self.push(
            "finish",
            1,
            &[one(&partial), one(scalars), one(&op)],
            (1, 1),
        )?;
        self.sync(Sync::Reduce(scalars.clone(), slot, later));
        Ok(())
    }

    /// A one-invocation CG update of the scalars.
    pub(super) fn scalar(&mut self, entry: &'static str, scalars: &wgpu::Buffer) -> Result<()> {
        let (partial, op) = (self.partial()?, self.op(0, false, 0));
        self.push(entry, 1, &[one(&partial), one(scalars), one(&op)], (1, 1))
    }
}
