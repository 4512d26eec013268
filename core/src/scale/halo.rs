//! The halo swap of one rank on its GPU: pack the planes the neighbours
//! need into a contiguous buffer (`shaders/common/halo.wgsl`, through the
//! field's own targetDP layout), read it back, swap it through a [`Comm`],
//! upload what arrived and unpack it into the halo planes. The GPU halves
//! are recorded into the caller's command encoder (see `exec`), so a swap
//! costs one wait for the GPU, not one per step.
//!
//! Where the device maps storage buffers (`MAPPABLE_PRIMARY_BUFFERS`), the
//! planes need no copies on the GPU's queue: the unpack reads the upload
//! buffer itself, and a swap with work beside it (`exec`'s lead slice of
//! an interior) moves the packed planes to the host with a kernel of a few
//! workgroups in the same pass as that work, not a copy, which on wgpu's
//! one queue runs in line with compute (docs/notebook/benchmarks.md,
//! sections v and ab).
//!
//! Where the ranks share a node and their devices import host memory, the
//! planes travel through neither MPI nor the CPU: each GPU writes them into
//! its neighbours' mailboxes in the node's shared memory and fetches its
//! own into device memory beside the interior's last stretch (`mailbox`),
//! and the ranks only tell each other they have written.
//!
//! The host side of a swap allocates nothing: a readback buffer and the
//! receive buffer live as long as the planes. Fresh host memory every step
//! cost more than the swap itself on the lent GPU machines, whose memory is
//! faulted in from the hypervisor page by page.

use web_time::Instant;

use super::mailbox::{self, Halos};
use super::route::{Route, Shared, Staged, with};
use super::{Comm, Decomposition};
use crate::error::{Error, Result};
use crate::gpu::{Bind, Gpu, Pipeline, dispatch_shape};
use crate::layout::Groups;
use crate::precision::Precision;
use crate::shader::{ShaderSpec, sources};

/// Workgroup size of the pack and unpack kernels (an invocation a site).
const WG: u32 = 256;

/// Workgroups of the kernel that moves the packed planes into the host's
/// memory (or fetches them back) beside other work: few enough to leave the
/// GPU to that work, enough to keep PCIe busy. On one H200, 16 workgroups of
/// 256 moved 10 MiB to the host as fast as a copy and hid beside a full-GPU
/// streaming kernel recorded after them in the same pass (notebook section
/// ab); beside milc's interior on a 64^3 x 64 slab, 8 cost that interior 10
/// ms a solve less than 16 and still hid the trip, while 32 cost 24 ms more
/// (section af).
const HOST_GROUPS: u32 = 8;

/// The components of a site each side's planes carry: what the neighbour
/// on that side reads of them. Value `k` of a side is its component
/// `list[k]`, plus `sign * component` of its `mix[k]` when mixed (a spin
/// projection: milc sends half spinors), and lands in component `list[k]`
/// of the neighbour's halo site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Send {
    /// Of the lowest own planes, for the rank below.
    pub down: Vec<u32>,
    /// Of the highest own planes, for the rank above.
    pub up: Vec<u32>,
    /// `(component, sign)` added to each of `down`'s and `up`'s values
    /// (sign -1 or 1), or empty for plain copies.
    pub mix: [Vec<(u32, i32)>; 2],
    /// Whether the halo sites' components that no value lands in are set to
    /// zero (a projection's receiver) or kept as they were.
    pub zero_rest: bool,
}

impl Send {
    /// Every component both ways (a kernel that reads whole neighbour sites).
    pub fn all(ncomp: u32) -> Send {
        Send::copies((0..ncomp).collect(), (0..ncomp).collect())
    }

    /// Plain copies of `down`'s and `up`'s components.
    pub fn copies(down: Vec<u32>, up: Vec<u32>) -> Send {
        Send {
            down,
            up,
            mix: Default::default(),
            zero_rest: false,
        }
    }

    /// Components per side; both sides carry as many, so that a rank's send
    /// and receive buffers have one size.
    fn per_side(&self, ncomp: u32) -> Result<u32> {
        let valid = |v: &[u32]| {
            let distinct: std::collections::BTreeSet<_> = v.iter().collect();
            !v.is_empty() && distinct.len() == v.len() && v.iter().all(|&c| c < ncomp)
        };
        let mixes = |m: &[(u32, i32)], n: usize| {
            m.is_empty() || (m.len() == n && m.iter().all(|&(c, s)| c < ncomp && s.abs() == 1))
        };
        let n = self.down.len();
        if n != self.up.len()
            || !valid(&self.down)
            || !valid(&self.up)
            || !self.mix.iter().all(|m| mixes(m, n))
            || self.mix[0].is_empty() != self.mix[1].is_empty()
        {
            return Err(Error::Device(format!(
                "halo: send lists {self:?} are not two equal, non-empty lists of distinct components below {ncomp} (with mixes of as many, or none)"
            )));
        }
        Ok(n as u32)
    }
}

/// WGSL `fn name(k: u32) -> u32` giving `v[k]`, a switch, rather than a
/// constant array indexed at run time, which WGSL lets a kernel index only
/// through a `var` copy made by each invocation (the H200 timed both
/// alike: notebook section af).
fn lookup(name: &str, v: &[u32]) -> String {
    let cases: String = v
        .iter()
        .enumerate()
        .map(|(k, c)| format!(" case {k}u: {{ return {c}u; }}"))
        .collect();
    format!("fn {name}(k: u32) -> u32 {{ switch k {{{cases} default: {{ return 0u; }} }} }}\n")
}

/// The value of `list` that carries each of `ncomp` components, `list.len()`
/// where none does (the unpack's lookups `recv0` and `recv1`).
fn inverse(list: &[u32], ncomp: u32) -> Vec<u32> {
    (0..ncomp)
        .map(|c| list.iter().position(|&x| x == c).unwrap_or(list.len()) as u32)
        .collect()
}

/// Bytes of one side's planes across split axis `axis`, and where side 1
/// starts in a buffer of packed planes (side 0 padded to 256 bytes, the
/// most any device asks a bound range's offset to be a multiple of).
fn sides(p: Precision, d: &Decomposition, axis: usize, send: &Send) -> (u64, u64) {
    let side = (d.halo * d.along(axis).plane * send.down.len()) as u64 * p.real_bytes();
    (side, side.next_multiple_of(256))
}

/// The halo module for a field of `groups` (its layout, split over buffers
/// by component group) split over ranks as `d` describes, across split axis
/// `axis` (0: the slowest, 1: the second), each side carrying the
/// components `send` lists (checked by [`HaloPlanes::sending`]).
pub fn spec(
    p: Precision,
    groups: &Groups,
    d: &Decomposition,
    axis: usize,
    send: &Send,
) -> ShaderSpec {
    let along = d.along(axis);
    // Unmixed: each value adds zero times itself, which the kernel skips.
    let mix = |side: usize, list: &[u32]| -> (Vec<u32>, Vec<u32>) {
        match send.mix[side].is_empty() {
            true => (list.to_vec(), vec![0; list.len()]),
            false => send.mix[side]
                .iter()
                .map(|&(c, s)| (c, u32::from(s > 0) + 1))
                .unzip(),
        }
    };
    let (mix0, sign0) = mix(0, &send.down);
    let (mix1, sign1) = mix(1, &send.up);
    let layout = &groups.layout;
    let hi_at = sides(p, d, axis, send).1 / p.real_bytes();
    let bindings = groups.declare("field", "read_write", 0)
        + &format!(
            "@group(0) @binding({}) var<storage, read_write> halo: array<RealStore>;\n",
            groups.count()
        );
    let spec = ShaderSpec::new("halo", sources::HALO, p)
        .with_u32("WG", WG)
        .with_u32("NCOMP", layout.ncomp)
        .with_u32("PLANE", along.plane as u32)
        .with_u32("INNER", along.inner as u32)
        .with_u32("EXTENT", along.extent as u32)
        .with_u32("PLANES", along.owned as u32)
        .with_u32("HALO", d.halo as u32)
        .with_u32("NSEND", send.down.len() as u32)
        .with_u32("HI_AT", hi_at as u32)
        .with_u32("ZERO_REST", u32::from(send.zero_rest))
        .with_include(lookup("send0", &send.down) + &lookup("send1", &send.up))
        .with_include(
            lookup("recv0", &inverse(&send.down, layout.ncomp))
                + &lookup("recv1", &inverse(&send.up, layout.ncomp)),
        )
        .with_include(lookup("mix0", &mix0) + &lookup("mix1", &mix1))
        .with_include(lookup("sign0", &sign0) + &lookup("sign1", &sign1))
        .with_include(sources::GRID)
        .with_include(bindings + &groups.accessors("field"));
    layout.apply(spec)
}

/// Pack and unpack pipelines bound to a rank's field buffers, and the
/// buffers the halos travel through, across one split axis.
pub struct HaloPlanes {
    /// The split axis (0: the slowest, 1: the second).
    axis: usize,
    pack: Pipeline,
    unpack: Pipeline,
    /// One bind group per field: (field i's buffers, send).
    pack_groups: Vec<wgpu::BindGroup>,
    /// The packed planes: side 0, then side 1 from byte `hi_at`, each
    /// padded to whole 256-byte words (so each side can be bound alone),
    /// as are the buffers the planes travel through.
    send: wgpu::Buffer,
    route: Route,
    /// Bytes of one side's planes.
    side_bytes: usize,
    /// Where side 1 starts in every buffer of packed planes.
    hi_at: u64,
    /// Of the pack and the unpack: an invocation a site of each side.
    dispatch: (u32, u32),
}

impl HaloPlanes {
    /// Builds the pipelines for `fields` (each the buffers of one field as
    /// `groups` splits it; a step may leave the current field in any of
    /// them) across split axis `axis` (0: the slowest, 1: the second), each
    /// side carrying only the components `send` lists (the others' halo
    /// values stay as they were), travelling by `route` where every rank
    /// can (else through MPI). Collective (the ranks agree on how the
    /// planes travel, see `mailbox`).
    pub fn sending(
        (gpu, comm, route): (&Gpu, &dyn Comm, Halos),
        p: Precision,
        groups: &Groups,
        (d, axis): (&Decomposition, usize),
        fields: &[&[wgpu::Buffer]],
        send: &Send,
    ) -> Result<HaloPlanes> {
        let layout = &groups.layout;
        if layout.sites as usize != d.padded_sites() || axis >= d.split_axes() {
            return Err(Error::Device(format!(
                "halo: a field of {} sites is not the padded box of {:?}, or it has no split axis {axis}",
                layout.sites,
                d.padded()
            )));
        }
        send.per_side(layout.ncomp)?;
        let sites = 2 * d.halo * d.along(axis).plane;
        let (side_bytes, hi_at) = sides(p, d, axis, send);
        let module = spec(p, groups, d, axis, send);
        let binds = vec![Bind::ReadWrite; groups.count() as usize + 1];
        let pack = gpu.pipeline(&module, "pack", &binds)?;
        let unpack = gpu.pipeline(&module, "unpack", &binds)?;
        let send_buf = gpu.storage("halo-send", 2 * hi_at)?;
        let pack_groups = fields
            .iter()
            .map(|f| gpu.bind_resources(&pack, &with(f, send_buf.as_entire_binding())))
            .collect();
        let route = match mailbox::open(gpu, comm, route, (axis, 2 * hi_at))? {
            Some(boxes) => {
                Route::Shared(Shared::new(gpu, p, boxes, (&send_buf, hi_at), |fetched| {
                    let bind = |f: &&[wgpu::Buffer]| {
                        gpu.bind_resources(&unpack, &with(f, fetched.clone()))
                    };
                    fields.iter().map(bind).collect()
                })?)
            }
            None => Route::Staged(Staged::new(gpu, p, 2 * hi_at, &send_buf, |arrived| {
                let bind = |f: &&[wgpu::Buffer]| {
                    gpu.bind_resources(&unpack, &with(f, arrived.as_entire_binding()))
                };
                fields.iter().map(bind).collect()
            })?),
        };
        Ok(HaloPlanes {
            axis,
            pack_groups,
            dispatch: dispatch_shape(sites as u64, WG, gpu.caps.max_workgroups_per_dim)?,
            pack,
            unpack,
            send: send_buf,
            route,
            side_bytes: side_bytes as usize,
            hi_at,
        })
    }

    /// How the planes travel: [`Halos::Shared`] through the node's shared
    /// memory, which the GPUs write and read themselves, or [`Halos::Mpi`].
    pub fn route(&self) -> Halos {
        match self.route {
            Route::Shared(_) => Halos::Shared,
            Route::Staged(_) => Halos::Mpi,
        }
    }

    /// Records the pack of field buffer `field`'s edge planes in a pass of
    /// its own (timestamped with `ts`) and their copy to the host (timed by
    /// `copy`): to the readback buffer, or into the neighbours' mailboxes.
    pub fn encode_pack(
        &self,
        enc: &mut wgpu::CommandEncoder,
        field: usize,
        ts: Option<wgpu::ComputePassTimestampWrites<'_>>,
        copy: Option<CopyClock<'_>>,
    ) {
        self.encode_pack_pass(enc, field, ts);
        let h = self.hi_at;
        CopyClock::around(copy, enc, |enc| match &self.route {
            Route::Staged(s) => {
                enc.copy_buffer_to_buffer(&self.send, 0, &s.readback, 0, s.readback.size());
            }
            Route::Shared(s) => {
                let at = s.at() as u64 * s.slot;
                enc.copy_buffer_to_buffer(&self.send, 0, &s.boxes.lo, at + h, h);
                enc.copy_buffer_to_buffer(&self.send, h, &s.boxes.hi, at, h);
            }
        });
    }

    fn encode_pack_pass(
        &self,
        enc: &mut wgpu::CommandEncoder,
        field: usize,
        ts: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let mut pass = begin(enc, ts);
        self.pack.set(&mut pass, &self.pack_groups[field]);
        pass.dispatch_workgroups(self.dispatch.0, self.dispatch.1, 1);
    }

    /// Whether the planes need no copies on the GPU's queue: a kernel
    /// moves them to the host ([`HaloPlanes::encode_pack_beside`]), and
    /// [`HaloPlanes::encode_unpack`] copies nothing up. So where the planes
    /// travel through shared memory, or the device maps storage buffers.
    pub fn zero_copy(&self) -> bool {
        match &self.route {
            Route::Staged(s) => s.to_host.is_some(),
            Route::Shared(_) => true,
        }
    }

    /// Where [`HaloPlanes::zero_copy`]: records the pack of field buffer
    /// `field`'s edge planes in a pass of its own (timestamped with `ts`),
    /// then a pass (timestamped with `ts_beside`) that moves them to the
    /// host (the readback buffer, or the neighbours' mailboxes) from a few
    /// workgroups, first, and `beside` after: work that touches none of the
    /// halo's buffers, which keeps the rest of the GPU while the planes
    /// cross to the host. (wgpu orders a dispatch after an earlier one of
    /// its pass that writes a buffer it binds, and on Vulkan such a barrier
    /// waits for every dispatch before it; a buffer's first use in a pass
    /// is ordered at the pass's start.) Elsewhere it records what
    /// [`HaloPlanes::encode_pack`] does, and `beside` in a pass of its own.
    pub fn encode_pack_beside(
        &self,
        enc: &mut wgpu::CommandEncoder,
        field: usize,
        (ts, ts_beside): (
            Option<wgpu::ComputePassTimestampWrites<'_>>,
            Option<wgpu::ComputePassTimestampWrites<'_>>,
        ),
        beside: impl FnOnce(&mut wgpu::ComputePass<'_>),
    ) {
        let (pipe, groups) = match &self.route {
            Route::Staged(Staged {
                to_host: Some((pipe, group)),
                ..
            }) => (pipe, std::slice::from_ref(group)),
            Route::Shared(s) => (&s.to_host, &s.to_boxes[s.at()][..]),
            Route::Staged(_) => {
                self.encode_pack(enc, field, ts, None);
                beside(&mut begin(enc, ts_beside));
                return;
            }
        };
        self.encode_pack_pass(enc, field, ts);
        let mut pass = begin(enc, ts_beside);
        for group in groups {
            pipe.set(&mut pass, group);
            pass.dispatch_workgroups(HOST_GROUPS / groups.len() as u32, 1, 1);
        }
        beside(&mut pass);
    }

    /// Where the planes travel through shared memory, after
    /// [`HaloPlanes::exchange`]: records a pass (timestamped with `ts`)
    /// that fetches the planes that arrived from
    /// this rank's inbox into device memory from a few workgroups, first,
    /// and `beside` after (work that touches none of the halo's buffers),
    /// so that their read over PCIe hides in it; the unpack then reads
    /// device memory. Elsewhere it records nothing (and `ts` must be `None`).
    pub fn encode_fetch_beside(
        &self,
        enc: &mut wgpu::CommandEncoder,
        ts: Option<wgpu::ComputePassTimestampWrites<'_>>,
        beside: impl FnOnce(&mut wgpu::ComputePass<'_>),
    ) {
        let Route::Shared(s) = &self.route else {
            return;
        };
        let mut pass = begin(enc, ts);
        s.to_host.set(&mut pass, &s.fetch[s.at()]);
        pass.dispatch_workgroups(HOST_GROUPS, 1, 1);
        beside(&mut pass);
    }

    /// Resolves once submission `index`, holding the pack, is done, while
    /// later submissions may run. Call it before submitting more.
    pub fn sent<'a>(
        &'a self,
        gpu: &'a Gpu,
        index: wgpu::SubmissionIndex,
    ) -> super::LocalFuture<'a, Result<()>> {
        match &self.route {
            Route::Staged(s) => Box::pin(gpu.map_after(&s.readback, wgpu::MapMode::Read, index)),
            Route::Shared(_) => Box::pin(gpu.submitted_done(index)),
        }
    }

    /// After [`HaloPlanes::sent`]: swaps the planes with the neighbours.
    /// Staged, it maps the upload buffer and swaps the planes from the
    /// mapped readback into it; shared, the planes are already in the
    /// neighbours' mailboxes, and the ranks only tell each other so.
    /// Returns the seconds spent in the swap between ranks (neighbours'
    /// waits included) and in mapping the upload buffer.
    pub async fn exchange(
        &self,
        gpu: &Gpu,
        comm: &dyn Comm,
        done: wgpu::SubmissionIndex,
    ) -> Result<(f64, f64)> {
        match &self.route {
            Route::Staged(s) => {
                s.exchange(gpu, comm, done, (self.axis, self.side_bytes, self.hi_at))
                    .await
            }
            Route::Shared(_) => {
                let t0 = Instant::now();
                let (mut lo, mut hi) = ([0u8], [0u8]);
                comm.exchange(self.axis, &[1], &[1], &mut lo, &mut hi)?;
                Ok((t0.elapsed().as_secs_f64(), 0.0))
            }
        }
    }

    /// Records the copy of what arrived to the device (timed by `copy`;
    /// none where the unpack reads what arrived in place, and then `copy`
    /// must be `None`) and its unpack into field buffer `field`'s halo
    /// planes, in a pass of its own (timestamped with `ts`).
    pub fn encode_unpack(
        &self,
        enc: &mut wgpu::CommandEncoder,
        field: usize,
        copy: Option<CopyClock<'_>>,
        ts: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let group = match &self.route {
            Route::Staged(s) => {
                if let Some(recv) = &s.recv {
                    CopyClock::around(copy, enc, |enc| {
                        enc.copy_buffer_to_buffer(&s.upload, 0, recv, 0, recv.size());
                    });
                }
                &s.unpack_groups[field]
            }
            Route::Shared(s) => {
                s.swaps.set(s.swaps.get() + 1);
                &s.unpack_groups[field]
            }
        };
        let mut pass = begin(enc, ts);
        self.unpack.set(&mut pass, group);
        pass.dispatch_workgroups(self.dispatch.0, self.dispatch.1, 1);
    }
}

/// Timestamps written around a copy: queries `first` and `first + 1` of `set`.
pub struct CopyClock<'a> {
    /// The query set.
    pub set: &'a wgpu::QuerySet,
    /// The query before the copy; the next is after it.
    pub first: u32,
}

impl CopyClock<'_> {
    /// Records `copy` into `enc` between the two timestamps.
    pub fn around(
        clock: Option<CopyClock<'_>>,
        enc: &mut wgpu::CommandEncoder,
        copy: impl FnOnce(&mut wgpu::CommandEncoder),
    ) {
        if let Some(c) = &clock {
            enc.write_timestamp(c.set, c.first);
        }
        copy(enc);
        if let Some(c) = &clock {
            enc.write_timestamp(c.set, c.first + 1);
        }
    }
}

/// A compute pass of the halo kernels.
fn begin<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    ts: Option<wgpu::ComputePassTimestampWrites<'_>>,
) -> wgpu::ComputePass<'e> {
    enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("halo"),
        timestamp_writes: ts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_lists_must_be_equal_nonempty_distinct_and_in_range() {
        assert_eq!(Send::all(19).per_side(19).expect("all"), 19);
        let mut mixed = Send::copies(vec![0, 1], vec![0, 1]);
        mixed.mix = [vec![(2, -1), (3, -1)], vec![(2, 1), (3, 1)]];
        assert_eq!(mixed.per_side(4).expect("mixed"), 2);
        mixed.mix[1].clear();
        assert!(mixed.per_side(4).is_err(), "one side mixed");
        mixed.mix[1] = vec![(2, 2), (3, 1)];
        assert!(mixed.per_side(4).is_err(), "a sign of 2");
        for axis in [0, 1] {
            let lbm = crate::apps::lbm::dist::halo_send(axis);
            assert_eq!(lbm.per_side(19).expect("lbm"), 5);
        }
        let bad = [
            Send::copies(vec![0, 1], vec![2]),
            Send::copies(vec![], vec![]),
            Send::copies(vec![19], vec![0]),
            Send::copies(vec![3, 3], vec![0, 1]),
        ];
        for s in bad {
            assert!(s.per_side(19).is_err(), "{s:?}");
        }
    }

    #[test]
    fn the_lists_become_wgsl_lookups() {
        assert_eq!(
            lookup("send0", &[3, 7]),
            "fn send0(k: u32) -> u32 { switch k { case 0u: { return 3u; } case 1u: { return 7u; } default: { return 0u; } } }\n"
        );
        // Components 3 and 7 land from values 0 and 1; the rest from none (2).
        assert_eq!(inverse(&[3, 7], 8), [2, 2, 2, 0, 2, 2, 2, 1]);
    }
}
