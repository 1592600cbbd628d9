//! The section writer. Generated encoders emit records into named sections in
//! the schema's order; every offset is a fixup patched once its target is
//! placed. Out-of-line values can be placed through a dedup pool.

use crate::base::{align_up, check_cstring, offset_value, put_uint_at, uint_bytes};
/// The field widths, dedup policies, spans and byte orders of the base
/// module, reachable where the writer's API is read.
pub use crate::base::{Dedup, Endian, Primitive, SectionSpan, Width};
use crate::error::{EncodeError, EncodeResult};
use crate::pool::{ByteSearchPool, ExactPool};

/// The output buffer with its sections, record positions and pools.
#[derive(Debug)]
pub struct Writer {
    /// Whether dropping this writer keeps its memory for the next one.
    recycle: bool,
    /// The length of the output this writer last handed out.
    last_len: usize,
    /// The longest output since this writer's memory was new, and how many
    /// outputs in a row since were far shorter (see [`Writer::new`]).
    peak_len: usize,
    short_runs: u32,
    pub(crate) buf: Vec<u8>,
    pub(crate) endian: Endian,
    /// Where the records a glue hook hands back by reference were written
    /// (see `noted.rs`).
    noted: crate::noted::NotedRecords,
    /// Records written per type id (the schema's type index).
    counts: Vec<u64>,
    sections: Vec<SectionSpan>,
    current: usize,
    dedup: Dedup,
    pub(crate) search: ByteSearchPool,
    pub(crate) exact: ExactPool,
    /// What the unit being encoded remembers (see `scope.rs`).
    pub(crate) scope: crate::memory::scope::WriteScope,
    /// Pools, offset targets and context (see `layout.rs`).
    pub(crate) layout: crate::memory::layout::WriteLayout,
    /// Interned string tables (see `interned.rs`).
    pub(crate) tables: crate::memory::interned::WriteTables,
    /// Shapes of shared records (see `shared.rs`).
    pub(crate) shapes: crate::memory::shared::Shapes,
    /// The order of the sorted list written last (`placement.rs`).
    pub(crate) sorted: crate::memory::placement::LastSorted,
    /// A section filled in the same walk as the current one (see `lane.rs`).
    pub(crate) lanes: crate::memory::lane::Lanes,
    /// [`crate::base::LANE`] while a lane is entered, else 0: the bit the
    /// positions handed out carry.
    pub(crate) lane_tag: u64,
    /// A sorted section open or sorted already (see `sorted_values.rs`).
    pub(crate) sorting: crate::memory::sorted_values::Sorting,
    /// Numbers to patch once the layout is done (see `settled.rs`).
    pub(crate) settled: Vec<crate::memory::settled::Pending>,
    /// Whether offsets written are noted or moved for a sorted section:
    /// one test on the way of every offset, false in most files.
    pub(crate) sorting_watch: bool,
    /// The bytes the units still to come are guessed to take (see
    /// [`Writer::note_units_to_come`]).
    units_to_come: usize,
    /// Where the current section starts when [`Writer::place_word`] looks
    /// its words up (a byte-search section at 4-byte steps that starts
    /// 4-aligned, outside a lane), else `usize::MAX`: one field read per
    /// word instead of the tests it stands for (see `refresh_word_base`).
    word_base: usize,
    /// A writer for the units this one holds, kept between them.
    pub(crate) spare: Option<Box<Writer>>,
}

macro_rules! put_number {
    ($name:ident, $t:ty) => {
        #[inline]
        pub fn $name(&mut self, v: $t) {
            self.put_as(v, self.endian);
        }
    };
}

/// A writer whose output grew past this many bytes is not kept for the
/// next output (so that one huge file does not pin its pools' memory).
const KEEP_CAPACITY: usize = 4 << 20;

/// A kept writer whose last this many outputs were each under an eighth of
/// its longest one starts again with new memory (see [`Writer::new`]).
const SHORT_RUNS_BEFORE_FRESH: u32 = 16;

/// The output buffer's first capacity when nothing better is known.
const FIRST_CAPACITY: usize = 16 << 10;

/// The capacity of an output buffer after an output of `last_len` bytes:
/// a little more than that, since writers reserve a few bytes past what
/// they keep (a string's terminator and padding go in as one 16-byte
/// store), and an output of the same size must not grow by doubling (a
/// copy of the whole output).
fn next_capacity(last_len: usize) -> usize {
    (last_len + 64).clamp(FIRST_CAPACITY, KEEP_CAPACITY)
}

/// The first capacity of a new writer's output buffer: sized from the
/// last output of the writer it replaces, if any.
fn after(replaced: Option<&Writer>) -> usize {
    replaced.map_or(FIRST_CAPACITY, |w| next_capacity(w.last_len))
}

thread_local! {
    /// The last writer dropped on this thread, kept with its memory (pools,
    /// record maps) so that the next encode on the thread does not grow
    /// them again from nothing. Its output was handed out; the next output
    /// buffer starts at the size of that one.
    static SPARE: std::cell::RefCell<Option<Writer>> = const { std::cell::RefCell::new(None) };
}

impl Writer {
    /// An empty writer. It reuses the memory of the last writer dropped on
    /// this thread, if any.
    ///
    /// Unless that memory was grown by a far larger output than the recent
    /// ones: emptying a kept table writes every control byte of its
    /// capacity, so after one large document every small one would pay to
    /// clear the large one's tables (issue 51: a third of encoding a 32 KiB
    /// blob, after the float-array fixture). After
    /// [`SHORT_RUNS_BEFORE_FRESH`] outputs in a row under an eighth of the
    /// longest, the memory is let go; a run of files of mixed sizes keeps
    /// it, as growing the tables again costs more than clearing them.
    pub fn new(endian: Endian, type_count: usize, section_count: usize) -> Self {
        let spare = SPARE
            .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
            .ok()
            .flatten();
        match spare {
            Some(mut w) => {
                if !w.ready_for_next(endian, type_count, section_count) {
                    return Writer::fresh(endian, type_count, section_count, after(Some(&w)));
                }
                w.recycle = true;
                w
            }
            None => Writer::fresh(endian, type_count, section_count, after(None)),
        }
    }

    /// Empties a kept writer for the next output, unless its memory is to
    /// go (see [`Writer::new`]): then false, and it is left as it is.
    fn ready_for_next(&mut self, endian: Endian, type_count: usize, section_count: usize) -> bool {
        if self.short_runs >= SHORT_RUNS_BEFORE_FRESH {
            return false;
        }
        self.reset(endian, type_count, section_count);
        if self.buf.capacity() == 0 {
            self.buf = Vec::with_capacity(next_capacity(self.last_len));
        }
        true
    }

    /// Whether this writer's memory is too large to keep for the next
    /// output ([`KEEP_CAPACITY`]).
    fn too_large_to_keep(&self) -> bool {
        self.last_len.max(self.buf.len()) > KEEP_CAPACITY
    }

    /// Runs `fill` on the thread's kept writer, emptied, and hands out the
    /// output: the writer's memory (1,560 bytes of tables and pools, and
    /// what they hold) stays where it is, where [`Writer::new`] and the
    /// drop move it out of the thread's slot and back (issue 51: half of
    /// what a file of one blob costs besides its copy). The slot's writer
    /// is renewed, kept or let go as [`Writer::new`] would. While it is
    /// lent (an encode inside a glue hook of another), a writer of its own.
    pub fn lend(
        endian: Endian,
        type_count: usize,
        section_count: usize,
        fill: impl FnOnce(&mut Writer) -> EncodeResult<()>,
    ) -> EncodeResult<Vec<u8>> {
        let mut fill = Some(fill);
        let lent = SPARE.try_with(|s| {
            let Ok(mut slot) = s.try_borrow_mut() else {
                return None;
            };
            let f = fill.take()?;
            let ready = match &mut *slot {
                Some(w) => w.ready_for_next(endian, type_count, section_count),
                None => false,
            };
            let w = if ready {
                slot.as_mut().expect("a kept writer, made ready")
            } else {
                let mut w = Writer::fresh(endian, type_count, section_count, after(slot.as_ref()));
                // Held by the slot: dropping it there keeps nothing.
                w.recycle = false;
                slot.insert(w)
            };
            let out = f(w).map(|()| w.take_output());
            if w.too_large_to_keep() {
                *slot = None;
            } else {
                w.buf.clear();
            }
            Some(out)
        });
        match (lent.ok().flatten(), fill) {
            (Some(out), _) => out,
            (None, Some(f)) => {
                let mut w = Writer::new(endian, type_count, section_count);
                f(&mut w)?;
                Ok(w.into_bytes())
            }
            (None, None) => unreachable!("the fill runs once"),
        }
    }

    fn fresh(endian: Endian, type_count: usize, section_count: usize, capacity: usize) -> Self {
        Writer {
            recycle: true,
            last_len: 0,
            peak_len: 0,
            short_runs: 0,
            buf: Vec::with_capacity(capacity),
            endian,
            noted: Default::default(),
            counts: vec![0; type_count],
            sections: vec![SectionSpan::default(); section_count],
            current: 0,
            dedup: Dedup::None,
            search: ByteSearchPool::default(),
            exact: ExactPool::default(),
            scope: Default::default(),
            layout: Default::default(),
            tables: Default::default(),
            shapes: Default::default(),
            sorted: Default::default(),
            lanes: Default::default(),
            lane_tag: 0,
            sorting: Default::default(),
            settled: Vec::new(),
            sorting_watch: false,
            units_to_come: 0,
            word_base: usize::MAX,
            spare: None,
        }
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Where the next byte goes. Inside a lane, lane-relative with the
    /// [`crate::base::LANE`] bit set.
    #[inline]
    pub fn pos(&self) -> u64 {
        self.buf.len() as u64 | self.lane_tag
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The output. The rest of the writer's memory goes back to the thread
    /// for the next output.
    pub fn into_bytes(mut self) -> Vec<u8> {
        self.take_output()
    }

    /// The output, taken out of the writer, and what the next output's
    /// buffer and the choice to keep this memory are sized from.
    fn take_output(&mut self) -> Vec<u8> {
        let out = std::mem::take(&mut self.buf);
        self.last_len = out.len();
        self.peak_len = self.peak_len.max(out.len());
        if out.len().saturating_mul(8) < self.peak_len {
            self.short_runs += 1;
        } else {
            self.short_runs = 0;
        }
        out
    }

    /// The output so far, to change in place (a unit's transform).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }

    /// Empties the writer for another output, keeping the memory it has.
    pub fn reset(&mut self, endian: Endian, type_count: usize, section_count: usize) {
        // An output abandoned inside a lane (an error) gets its buffers back
        // in place before they are emptied.
        self.leave_lane();
        self.lanes.open = false;
        self.buf.clear();
        self.endian = endian;
        self.noted.clear();
        self.counts.clear();
        self.counts.resize(type_count, 0);
        self.sections.clear();
        self.sections.resize(section_count, SectionSpan::default());
        self.current = 0;
        self.dedup = Dedup::None;
        self.search.reset();
        self.exact.reset();
        self.scope.clear();
        self.layout.clear();
        self.tables.clear();
        self.shapes.clear();
        self.sorted.clear();
        self.sorting.clear();
        self.settled.clear();
        self.sorting_watch = false;
        self.lane_tag = 0;
        self.units_to_come = 0;
        self.refresh_word_base();
    }

    /// Recomputes `word_base` after the section, its policy, its start or
    /// the lane state changed.
    pub(crate) fn refresh_word_base(&mut self) {
        let start = self.section(self.current).start as usize;
        let searched = self.lane_tag == 0
            && matches!(self.dedup, Dedup::ByteSearch { align: 4 })
            && start % 4 == 0;
        self.word_base = if searched { start } else { usize::MAX };
    }

    /// Makes `id` the current section with `dedup`; returns the previous ones.
    pub(crate) fn swap_section(&mut self, id: usize, dedup: Dedup) -> (usize, Dedup) {
        let old = (self.current, self.dedup);
        self.current = id;
        self.dedup = dedup;
        self.refresh_word_base();
        old
    }

    pub(crate) fn set_section_span(&mut self, id: usize, span: SectionSpan) {
        if let Some(s) = self.sections.get_mut(id) {
            *s = span;
        }
        self.refresh_word_base();
    }

    /// The main output, also while a lane is entered (for patches and for
    /// reading back offsets of records written earlier).
    #[inline(always)]
    fn main_buf(&self) -> &[u8] {
        if self.lane_tag == 0 {
            &self.buf
        } else {
            &self.lanes.lane.buf
        }
    }

    /// Makes room for `n` more bytes.
    pub fn reserve(&mut self, n: usize) {
        self.buf.reserve(n);
    }

    /// Before unit `done` of a list of `total` units that started at
    /// `first`: notes what the units still to come will take, at the
    /// average size so far, for [`Writer::put_unit`]. Nothing grows here:
    /// a buffer that has the room (sized from the previous output of the
    /// same file, say) is never grown on a guess, and the guess runs high
    /// (a file's first tables are often its largest).
    pub fn note_units_to_come(&mut self, first: u64, done: usize, total: usize) {
        self.units_to_come = if done == 0 {
            0
        } else {
            let avg = (self.pos().saturating_sub(first)) / done as u64;
            avg.saturating_mul(total.saturating_sub(done) as u64)
                .min(1 << 31) as usize
        };
    }

    /// Appends a unit laid out on its own. When it does not fit, the
    /// output grows once, to room for it and for the units still to come
    /// (their guess from [`Writer::note_units_to_come`] plus a quarter),
    /// rather than doubling step by step; growing copies only the bytes
    /// written so far (see `Writer::grow_to`).
    ///
    /// A guess made from a few units is trusted up to 16 times the bytes
    /// written, so that one large unit before thousands of small ones
    /// cannot make the writer reserve gigabytes it will not use.
    pub fn put_unit(&mut self, b: &[u8]) {
        if b.len() > self.buf.capacity() - self.buf.len() {
            let rest = self.units_to_come.min(self.buf.len().saturating_mul(16));
            self.grow_to(self.buf.len() + b.len().max(rest.saturating_add(rest / 4)));
        }
        self.buf.extend_from_slice(b);
    }

    /// Moves the output into a new buffer of `capacity` bytes. Unlike
    /// `Vec::reserve`, which reallocates and so (in glibc, for a block that
    /// cannot grow in place) copies the whole old *capacity*, this copies
    /// only the bytes written: a buffer sized for a whole file but holding
    /// its first tables moves for the price of those tables.
    fn grow_to(&mut self, capacity: usize) {
        if capacity <= self.buf.capacity() {
            return;
        }
        let mut grown = Vec::with_capacity(capacity);
        grown.extend_from_slice(&self.buf);
        self.buf = grown;
    }

    /// Appends `n` zero bytes. Up to [`SHORT_ZEROS`] go in as one
    /// fixed-size run, cut back to the count (padding, and short strings'
    /// terminators), rather than a fill.
    #[inline]
    pub fn put_zeros(&mut self, n: usize) {
        if n <= SHORT_ZEROS {
            self.put_run([0u8; SHORT_ZEROS], n);
        } else {
            self.buf.resize(self.buf.len() + n, 0);
        }
    }

    /// Pads with zero bytes up to a multiple of `align`.
    #[inline(always)]
    pub fn align(&mut self, align: u64) {
        pad_to(&mut self.buf, align);
    }

    #[inline]
    pub fn put_u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    #[inline]
    pub fn put_i8(&mut self, v: i8) {
        self.buf.push(v as u8);
    }

    put_number!(put_u16, u16);
    put_number!(put_i16, i16);
    put_number!(put_u32, u32);
    put_number!(put_i32, i32);
    put_number!(put_u64, u64);
    put_number!(put_i64, i64);

    #[inline]
    pub fn put_u24(&mut self, v: u32) {
        let b = v.to_le_bytes();
        match self.endian {
            Endian::Little => self.buf.extend_from_slice(&b[..3]),
            Endian::Big => self.buf.extend_from_slice(&[b[2], b[1], b[0]]),
        }
    }

    put_number!(put_f32, f32);
    put_number!(put_f64, f64);

    /// Writes `v` in `endian` order. Generated code calls this with its
    /// schema's order as a constant, where the interpreter and glue call
    /// the `put_u32`-style methods, which use the writer's order.
    #[inline(always)]
    pub fn put_as<T: Primitive>(&mut self, v: T, endian: Endian) {
        self.buf.extend_from_slice(v.bytes_in(endian).as_ref());
    }

    /// Writes every number of `v` in `endian` order, with one reservation
    /// for the run.
    #[inline]
    pub fn put_all<T: Primitive>(&mut self, v: &[T], endian: Endian) {
        self.buf.reserve(std::mem::size_of_val(v));
        for &x in v {
            self.buf.extend_from_slice(x.bytes_in(endian).as_ref());
        }
    }

    #[inline]
    pub fn put_bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Writes the first `n` bytes of `run` (`n <= N`): the whole run goes
    /// in as one fixed-size copy and the output is cut back, so a short
    /// run of a length known only at run time (a small array's tags and
    /// words) costs no call to `memcpy`.
    #[inline(always)]
    pub fn put_run<const N: usize>(&mut self, run: [u8; N], n: usize) {
        let end = self.buf.len() + n.min(N);
        self.buf.extend_from_slice(&run);
        self.buf.truncate(end);
    }

    /// Writes `b`, then `zeros` zero bytes ([`Writer::put_zeros`]), with
    /// one check of the output's room for both when the zeros are short.
    #[inline]
    pub fn put_bytes_then_zeros(&mut self, b: &[u8], zeros: usize) {
        self.buf.reserve(b.len() + zeros.max(SHORT_ZEROS));
        self.buf.extend_from_slice(b);
        self.put_zeros(zeros);
    }

    /// Writes an unsigned value of the given width, checking that it fits.
    #[inline(always)]
    pub fn put_uint(&mut self, width: Width, v: u64, what: &'static str) -> EncodeResult<()> {
        let (bytes, n) = uint_bytes(width, v, self.endian, what)?;
        self.buf.extend_from_slice(&bytes[..n]);
        Ok(())
    }

    /// Writes a NUL-terminated string; `max` bounds its length with the NUL,
    /// and the position after it is aligned to `pad` (absolute).
    pub fn put_cstring(
        &mut self,
        s: &str,
        max: Option<u64>,
        pad: Option<u64>,
        what: &'static str,
    ) -> EncodeResult<()> {
        check_cstring(s.as_bytes(), max, what)?;
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        if let Some(a) = pad {
            self.align(a);
        }
        Ok(())
    }

    /// Places a NUL-terminated string as one value of a section whose
    /// values are shared by exact content, into the open lane when
    /// `in_lane` (the walk of the section before fills this one): the bytes
    /// and position of entering the lane, [`Writer::begin_value`],
    /// [`Writer::put_cstring`], [`Writer::end_value`] and leaving, without
    /// switching buffers. Returns the value's position (lane-tagged in a
    /// lane).
    #[inline]
    pub fn place_cstring_exact(
        &mut self,
        s: &str,
        max: Option<u64>,
        pad: Option<u64>,
        item_align: u64,
        in_lane: bool,
        what: &'static str,
    ) -> EncodeResult<u64> {
        debug_assert!(self.lane_tag == 0, "placing while a lane is entered");
        check_cstring(s.as_bytes(), max, what)?;
        let (buf, exact, tag) = if in_lane {
            let lane = &mut self.lanes.lane;
            debug_assert!(self.lanes.open && lane.dedup == Some(Dedup::Exact));
            (&mut lane.buf, &mut lane.exact, crate::base::LANE)
        } else {
            debug_assert!(self.dedup == Dedup::Exact);
            (&mut self.buf, &mut self.exact, 0)
        };
        pad_to(buf, item_align);
        let start = buf.len();
        let bytes = s.as_bytes();
        let mut len = bytes.len() + 1;
        if let Some(a) = pad.filter(|&a| a > 1) {
            len += (a - (start + len) as u64 % a) as usize % a as usize;
        }
        // Looked up before it is written: a string found costs no write.
        match exact.find_or_remember_cstring(buf, bytes, len, start) {
            Some(p) => Ok(p | tag),
            None => {
                // The string, its terminator and padding, and the zeros up
                // to the next item's alignment, written at once.
                let end = align_up(start as u64 + len as u64, item_align) as usize;
                put_zero_padded(buf, bytes, end - start);
                Ok(start as u64 | tag)
            }
        }
    }

    /// Overwrites an unsigned value of the given width at `at`.
    #[inline(always)]
    pub fn patch_uint(
        &mut self,
        at: u64,
        width: Width,
        v: u64,
        what: &'static str,
    ) -> EncodeResult<()> {
        self.patch_uint_as(at, width, v, self.endian, what)
    }

    /// [`Writer::patch_uint`] in a given byte order (the writer's own).
    #[inline(always)]
    pub(crate) fn patch_uint_as(
        &mut self,
        at: u64,
        width: Width,
        v: u64,
        endian: Endian,
        what: &'static str,
    ) -> EncodeResult<()> {
        // Never called while a lane is entered: offsets into a lane are
        // kept (see `patch_offset`), and nothing else is patched there.
        debug_assert_eq!(self.lane_tag, 0, "patch while a lane is entered");
        put_uint_at(&mut self.buf, at, width, v, endian, what)
    }

    /// Patches an offset field: `(target - base) / scale` must be exact and
    /// fit. `endian` is the writer's byte order (generated code passes it as
    /// a constant).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn patch_offset(
        &mut self,
        at: u64,
        width: Width,
        base: u64,
        scale: u64,
        target: u64,
        endian: Endian,
        what: &'static str,
    ) -> EncodeResult<()> {
        debug_assert_eq!(endian, self.endian);
        let target = if self.sorting_watch {
            self.sorting.note(crate::memory::sorted_values::Site {
                at,
                width,
                base,
                scale,
                target,
                endian,
                what,
            })
        } else {
            target
        };
        if target & crate::base::LANE != 0 {
            // Into a lane: patched once the lane's start is known.
            let target = target & !crate::base::LANE;
            let kind = crate::memory::lane::OffsetKind { width, scale, what };
            self.lanes.lane.kept.keep(at, base, target, kind);
            return Ok(());
        }
        let v = offset_value(width, base, scale, target, what)?;
        self.patch_uint_as(at, width, v, endian, what)
    }

    /// Counts a record of a type (for derived record counts).
    #[inline]
    pub fn count_record(&mut self, type_id: usize) {
        if let Some(c) = self.counts.get_mut(type_id) {
            *c += 1;
        }
    }

    /// Remembers where the record of the value at `key` was written, for
    /// records that a glue hook hands back by reference. Other records are
    /// found by following the offsets already patched (see [`Writer::resolve`]).
    /// `stride` is the value's size in memory (`size_of`), so that records
    /// of consecutive elements are kept as one run.
    #[inline]
    pub fn note_record(&mut self, key: usize, type_id: usize, stride: usize, pos: u64) {
        self.noted.note(key, type_id, stride, pos);
    }

    /// Reads back a patched offset field at `at` and returns the position it
    /// points to: `base + stored * scale`. `endian` is the writer's byte
    /// order (generated code passes it as a constant).
    #[inline(always)]
    pub fn resolve(&self, at: u64, width: Width, base: u64, scale: u64, endian: Endian) -> u64 {
        debug_assert_eq!(endian, self.endian);
        let n = width.bytes() as usize;
        let at = at as usize;
        let Some(b) = self.main_buf().get(at..at + n) else {
            return 0;
        };
        let mut word = [0u8; 8];
        let v = match endian {
            Endian::Little => {
                word[..n].copy_from_slice(b);
                u64::from_le_bytes(word)
            }
            Endian::Big => {
                word[8 - n..].copy_from_slice(b);
                u64::from_be_bytes(word)
            }
        };
        base.wrapping_add(v.wrapping_mul(scale))
    }

    /// Where the record of the value at `key` was written.
    #[inline]
    pub fn record(&mut self, key: usize, type_id: usize, what: &'static str) -> EncodeResult<u64> {
        self.noted.find(key, type_id).ok_or_else(|| {
            EncodeError::new(
                what,
                "internal: a record was referenced before it was placed",
            )
        })
    }

    /// How many records of a type were written.
    pub fn count(&self, type_id: usize) -> u64 {
        self.counts.get(type_id).copied().unwrap_or(0)
    }

    /// Starts section `id` at the current position (after aligning).
    pub fn begin_section(&mut self, id: usize, align: u64, dedup: Dedup) {
        self.align(align);
        self.current = id;
        self.dedup = dedup;
        let start = self.pos();
        if let Some(s) = self.sections.get_mut(id) {
            *s = SectionSpan { start, end: start };
        }
        self.refresh_word_base();
        self.search.reset();
        self.exact.reset();
    }

    /// The section begun last.
    pub(crate) fn current_section(&self) -> usize {
        self.current
    }

    /// Ends the current section (after aligning).
    pub fn end_section(&mut self, align: u64) {
        self.align(align);
        let end = self.pos();
        if let Some(s) = self.sections.get_mut(self.current) {
            s.end = end;
        }
    }

    pub fn section(&self, id: usize) -> SectionSpan {
        self.sections.get(id).copied().unwrap_or_default()
    }

    /// Starts a value placed in the current section: aligns to `align` and
    /// returns where the value starts. Write the value, then call
    /// [`Writer::end_value`].
    #[inline(always)]
    pub fn begin_value(&mut self, align: u64) -> u64 {
        self.align(align);
        self.pos()
    }

    /// Places a value of exactly one 4-byte word, `bits` in its integer
    /// form written in `endian` order (the writer's own, which generated
    /// code passes as a constant), in the current section: the same bytes
    /// and position as
    /// [`Writer::begin_value`]`(4)`, the word, then [`Writer::end_value`].
    /// In a section that reuses bytes at 4-aligned positions (most values of
    /// such sections are one word), the word is looked up before it is
    /// written, with one map probe, inlined where the value is placed.
    #[inline(always)]
    pub fn place_word(&mut self, bits: u32, endian: Endian) -> u64 {
        self.align(4);
        let bytes = bits.bytes_in(endian);
        let s = self.buf.len();
        // A 4-aligned position in a section that starts 4-aligned is a
        // 4-byte step from its start.
        let sec_start = self.word_base;
        if sec_start <= s && s + 4 < u32::MAX as usize {
            debug_assert!(self.lane_tag == 0 && (s - sec_start) % 4 == 0);
            // The pool keys words as read back from the output.
            let word = u32::from_le_bytes(bytes);
            if let Some(p) = self.search.find_or_keep_word(&self.buf[sec_start..], word) {
                return sec_start as u64 + p;
            }
            self.buf.extend_from_slice(&bytes);
            return s as u64;
        }
        let start = self.pos();
        self.buf.extend_from_slice(&bytes);
        self.end_value(start, 4)
    }

    /// Ends a value begun at `start`: under the section's dedup policy, an
    /// earlier copy of its bytes is reused (and the new bytes dropped);
    /// otherwise the value stays and is padded to `align`. Returns where the
    /// value's bytes are.
    pub fn end_value(&mut self, start: u64, align: u64) -> u64 {
        let sec_start = self.section(self.current).start as usize;
        let tag = self.lane_tag;
        let s = (start & !crate::base::LANE) as usize;
        // The pools of the buffer being written (the lane keeps its own).
        let (exact, search) = if tag == 0 {
            (&mut self.exact, &mut self.search)
        } else {
            (&mut self.lanes.lane.exact, &mut self.lanes.lane.search)
        };
        let found = match self.dedup {
            Dedup::None => None,
            // Remembered at once when new.
            Dedup::Exact => exact.find_or_insert(&self.buf, s),
            Dedup::ByteSearch { align: 4 }
                if self.buf.len() == s + 4
                    && (s - sec_start) % 4 == 0
                    && self.buf.len() < u32::MAX as usize =>
            {
                // When new, the value is indexed where it stands.
                search
                    .find_word_or_keep(&self.buf[sec_start..], s - sec_start)
                    .map(|p| sec_start as u64 + p)
            }
            Dedup::ByteSearch { align: a } => {
                let (before, value) = self.buf.split_at(s);
                search
                    .find(&before[sec_start..], a, value)
                    .map(|p| sec_start as u64 + p)
            }
        };
        match found {
            Some(p) => {
                self.buf.truncate(s);
                p | tag
            }
            None => {
                self.align(align);
                start
            }
        }
    }
}

/// Appends `b` and zeros up to `len` bytes in all (`len > b.len()`). Up
/// to [`SHORT_ROOM`] bytes, the zeros go in as one fixed-size store and the
/// string's bytes as two overlapping fixed-size copies from its ends, so a
/// short string costs no call into `memcpy` or `memset`; the output is then
/// cut back to `len`.
#[inline]
fn put_zero_padded(buf: &mut Vec<u8>, b: &[u8], len: usize) {
    let start = buf.len();
    let n = b.len();
    if len > SHORT_ROOM {
        buf.extend_from_slice(b);
        buf.resize(start + len, 0);
        return;
    }
    buf.extend_from_slice(&[0u8; SHORT_ROOM]);
    let dst = &mut buf[start..start + n];
    match n {
        0 => {}
        1..=3 => {
            dst[0] = b[0];
            dst[n / 2] = b[n / 2];
            dst[n - 1] = b[n - 1];
        }
        4..=7 => {
            dst[..4].copy_from_slice(&b[..4]);
            dst[n - 4..].copy_from_slice(&b[n - 4..]);
        }
        8..=16 => {
            dst[..8].copy_from_slice(&b[..8]);
            dst[n - 8..].copy_from_slice(&b[n - 8..]);
        }
        _ => {
            dst[..16].copy_from_slice(&b[..16]);
            dst[n - 16..].copy_from_slice(&b[n - 16..]);
        }
    }
    buf.truncate(start + len);
}

/// The longest value [`put_zero_padded`] writes with fixed-size stores.
const SHORT_ROOM: usize = 32;

/// The most zeros [`Writer::put_zeros`] writes as one fixed-size run.
pub const SHORT_ZEROS: usize = 16;

/// Pads `buf` with zero bytes up to a multiple of `align`.
#[inline(always)]
fn pad_to(buf: &mut Vec<u8>, align: u64) {
    if align > 1 {
        let rem = buf.len() as u64 % align;
        if rem != 0 {
            buf.resize(buf.len() + (align - rem) as usize, 0);
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if !self.recycle || self.too_large_to_keep() {
            return;
        }
        // The stand-in allocates nothing. Neither it nor the kept writer
        // recycles when dropped (the kept one is turned back on when taken).
        let mut stand_in = Writer::fresh(self.endian, 0, 0, 0);
        stand_in.recycle = false;
        let mut kept = std::mem::replace(self, stand_in);
        kept.recycle = false;
        kept.buf.clear();
        let _ = SPARE.try_with(|s| {
            if let Ok(mut slot) = s.try_borrow_mut() {
                if slot.is_none() {
                    *slot = Some(kept);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run puts only its first `n` bytes, and zeros of any count are
    /// zeros (short ones go through a run).
    #[test]
    fn a_run_puts_its_first_bytes_and_zeros_their_count() {
        let mut w = Writer::fresh(Endian::Little, 0, 0, 0);
        w.put_run(*b"abcd", 2);
        w.put_zeros(3);
        w.put_run(*b"xyz", 3);
        w.put_zeros(20);
        w.put_run(*b"q", 0);
        let mut expected = b"ab\0\0\0xyz".to_vec();
        expected.extend([0; 20]);
        assert_eq!(w.buf, expected);
        // Bytes then zeros, on each side of the fixed run's length.
        for zeros in [0, SHORT_ZEROS, SHORT_ZEROS + 1] {
            let mut w = Writer::fresh(Endian::Little, 0, 0, 0);
            w.put_bytes_then_zeros(b"name", zeros);
            let mut expected = b"name".to_vec();
            expected.extend(vec![0; zeros]);
            assert_eq!(w.buf, expected, "{zeros} zeros");
        }
    }

    /// A unit that fits is appended where the buffer is; one that does not
    /// grows the buffer once, for itself and the units guessed to come,
    /// keeping the bytes written (growing copies the output).
    #[test]
    fn units_grow_the_output_only_when_one_does_not_fit() {
        let mut w = Writer::fresh(Endian::Little, 0, 0, 4096);
        w.put_zeros(100);
        // 1 unit of 100 bytes written, 49 to come: a guess of 4,900 bytes,
        // more than the room, but the next unit fits: nothing moves.
        w.note_units_to_come(0, 1, 50);
        w.put_unit(&[1; 100]);
        assert_eq!(w.buf.capacity(), 4096);
        // Units up to the room's end still fit.
        w.note_units_to_come(0, 2, 50);
        w.put_unit(&[2; 3896]);
        assert_eq!((w.buf.len(), w.buf.capacity()), (4096, 4096));
        // The next one does not: room for the 47 units to come, it among
        // them, at the average so far (1,365 bytes), and a quarter more.
        let before = w.buf.clone();
        w.note_units_to_come(0, 3, 50);
        w.put_unit(&[3; 10]);
        let guess = 4096 / 3 * 47;
        assert!(
            w.buf.capacity() >= 4096 + guess + guess / 4,
            "{}",
            w.buf.capacity()
        );
        assert_eq!(
            &w.buf[..4096],
            &before[..],
            "growing keeps the bytes written"
        );
        assert_eq!(&w.buf[4096..], &[3; 10]);
        // One large unit, then 999,999 small ones to come: the guess
        // (100 GB) is trusted up to 16 times the bytes written.
        let mut w = Writer::fresh(Endian::Little, 0, 0, 16);
        w.note_units_to_come(0, 0, 1_000_000);
        w.put_unit(&[5; 100_000]);
        w.note_units_to_come(0, 1, 1_000_000);
        w.put_unit(&[6; 10]);
        assert!(
            w.buf.capacity() <= 100_000 + 1_600_000 + 400_000 + 64,
            "{}",
            w.buf.capacity()
        );
        // A unit larger than the guess gets room for itself.
        let mut w = Writer::fresh(Endian::Little, 0, 0, 16);
        w.note_units_to_come(0, 0, 1);
        w.put_unit(&[4; 100]);
        assert_eq!(w.buf, [4; 100]);
    }

    /// Writes `words` as one-word values of a byte-search section; returns
    /// where each went and the output.
    fn place_words(words: &[u32]) -> (Vec<u64>, Vec<u8>) {
        let mut w = Writer::new(Endian::Little, 0, 1);
        w.put_u32(0xAAAA_AAAA);
        w.begin_section(0, 4, Dedup::ByteSearch { align: 4 });
        let at = words
            .iter()
            .map(|&v| {
                let s = w.begin_value(4);
                w.put_u32(v);
                w.end_value(s, 4)
            })
            .collect();
        w.end_section(4);
        (at, w.into_bytes())
    }

    #[test]
    fn one_word_values_reuse_the_first_aligned_copy() {
        let (at, out) = place_words(&[5, 6, 5, 6, 7, 5]);
        assert_eq!(at, [4, 8, 4, 8, 12, 4]);
        assert_eq!(out.len(), 16);
    }

    /// `place_word` gives the bytes and positions of the general path
    /// (begin, write, end) in every case: a word found whole, a word found
    /// straddling two longer values, a new word, a big-endian output, a
    /// section without byte search, and a value left unaligned before it.
    #[test]
    fn placing_a_word_equals_writing_then_ending_it() {
        enum Step {
            Word(u32),
            Pair(u32, u32),
            Byte(u8),
        }
        use Step::*;
        let steps = [
            Word(5),
            Pair(1, 2),
            Pair(3, 4),
            Word(2),
            Word(3),
            Word(5),
            Word(9),
            Byte(7),
            Word(9),
            Word(0x0907),
        ];
        for endian in [Endian::Little, Endian::Big] {
            for dedup in [Dedup::ByteSearch { align: 4 }, Dedup::Exact, Dedup::None] {
                let run = |fast: bool| {
                    let mut w = Writer::new(endian, 0, 1);
                    w.put_u8(0xAA);
                    w.begin_section(0, 4, dedup);
                    let mut at = Vec::new();
                    for step in &steps {
                        at.push(match *step {
                            Word(v) if fast => w.place_word(v, endian),
                            Word(v) => {
                                let s = w.begin_value(4);
                                w.put_u32(v);
                                w.end_value(s, 4)
                            }
                            Pair(a, b) => {
                                let s = w.begin_value(4);
                                w.put_u32(a);
                                w.put_u32(b);
                                w.end_value(s, 4)
                            }
                            Byte(b) => {
                                let s = w.begin_value(1);
                                w.put_u8(b);
                                w.end_value(s, 1)
                            }
                        });
                    }
                    w.end_section(4);
                    (at, w.into_bytes())
                };
                let (fast, slow) = (run(true), run(false));
                assert_eq!(fast, slow, "{endian:?}, {dedup:?}");
                if matches!(dedup, Dedup::ByteSearch { .. }) {
                    // 2 is found inside the pair (1, 2), 3 in (3, 4), and 5
                    // at its first copy.
                    assert_eq!(&fast.0[3..6], &[12, 16, 4], "{endian:?}");
                }
            }
        }
    }

    /// `place_cstring_exact` gives the bytes and positions of the general
    /// path (entering the lane when the string goes there, begin, write,
    /// end, leaving), in a lane beside a section and in a section of its
    /// own, with and without padding after the NUL: repeated strings are
    /// shared, a suffix of another string is not.
    #[test]
    fn placing_a_string_equals_the_general_path() {
        let strings = ["abc", "abcdefg", "abc", "bcdefg", "", "abcdefg", ""];
        for pad in [None, Some(4)] {
            for in_lane in [true, false] {
                let run = |fast: bool| {
                    let mut w = Writer::new(Endian::Little, 0, 2);
                    w.put_u8(0xAA);
                    let mut at = Vec::new();
                    if in_lane {
                        w.begin_section(0, 4, Dedup::None);
                        w.open_lane(1, 4, Dedup::Exact);
                    } else {
                        w.begin_section(1, 4, Dedup::Exact);
                    }
                    for (i, s) in strings.iter().enumerate() {
                        if in_lane {
                            // Something of the section itself between strings.
                            w.put_u8(i as u8);
                        }
                        at.push(if fast {
                            w.place_cstring_exact(s, Some(16), pad, 4, in_lane, "s")
                                .unwrap()
                        } else {
                            if in_lane {
                                w.enter_lane();
                            }
                            let start = w.begin_value(4);
                            w.put_cstring(s, Some(16), pad, "s").unwrap();
                            let t = w.end_value(start, 4);
                            if in_lane {
                                w.leave_lane();
                            }
                            t
                        });
                    }
                    w.end_section(4);
                    w.close_lane().unwrap();
                    (at, w.into_bytes())
                };
                let (fast, slow) = (run(true), run(false));
                assert_eq!(fast, slow, "pad {pad:?}, in lane: {in_lane}");
                let (at, _) = fast;
                assert_eq!(at[2], at[0], "a repeated string is shared");
                assert_eq!(at[5], at[1]);
                assert_ne!(at[3], at[1] + 1, "a suffix is not shared");
            }
        }
        // Refused as `put_cstring` refuses: a NUL inside, or too long.
        let mut w = Writer::new(Endian::Little, 0, 1);
        w.begin_section(0, 4, Dedup::Exact);
        assert!(w
            .place_cstring_exact("a\0b", None, None, 4, false, "s")
            .is_err());
        assert!(w
            .place_cstring_exact("abcd", Some(4), None, 4, false, "s")
            .is_err());
    }

    /// An unsigned field is its low bytes, in the output's order, written
    /// or patched, and a value wider than the field is refused.
    #[test]
    fn an_unsigned_field_is_its_low_bytes_in_order() {
        let v = 0x0102_0304_0506_0708u64;
        let cases = [
            (Width::U8, vec![0x08], vec![0x08]),
            (Width::U16, vec![0x08, 0x07], vec![0x07, 0x08]),
            (Width::U24, vec![0x08, 0x07, 0x06], vec![0x06, 0x07, 0x08]),
            (Width::U32, vec![8, 7, 6, 5], vec![5, 6, 7, 8]),
            (
                Width::U64,
                vec![8, 7, 6, 5, 4, 3, 2, 1],
                vec![1, 2, 3, 4, 5, 6, 7, 8],
            ),
        ];
        for (width, little, big) in cases {
            let fits = v & width.max();
            for (endian, want) in [(Endian::Little, &little), (Endian::Big, &big)] {
                let mut w = Writer::new(endian, 0, 0);
                w.put_uint(width, fits, "f").unwrap();
                assert_eq!(&w.into_bytes(), want, "{width:?} {endian:?}");
                // Patched in place, between bytes it must leave alone.
                let mut w = Writer::new(endian, 0, 0);
                w.put_bytes(&[0xEE; 10]);
                w.patch_uint(1, width, fits, "f").unwrap();
                let out = w.into_bytes();
                assert_eq!(&out[1..1 + want.len()], &want[..], "{width:?} {endian:?}");
                assert!(out[..1]
                    .iter()
                    .chain(&out[1 + want.len()..])
                    .all(|&b| b == 0xEE));
            }
            if width != Width::U64 {
                let mut w = Writer::new(Endian::Little, 0, 0);
                assert!(w.put_uint(width, width.max() + 1, "f").is_err());
            }
        }
    }

    /// A string written with fixed-size stores gives the bytes of a plain
    /// copy and zero fill: every length to 40 (both sides of the fixed
    /// room), padded lengths from one byte past it, after other bytes.
    #[test]
    fn a_zero_padded_string_is_its_bytes_then_zeros() {
        for n in 0..40usize {
            let b: Vec<u8> = (0..n as u8).map(|i| i + 1).collect();
            for len in n + 1..n + 12 {
                let mut buf = vec![0xEE; 3];
                put_zero_padded(&mut buf, &b, len);
                let mut want = vec![0xEE; 3];
                want.extend_from_slice(&b);
                want.resize(3 + len, 0);
                assert_eq!(buf, want, "{n} bytes padded to {len}");
            }
        }
    }

    #[test]
    fn a_recycled_writer_remembers_nothing_of_the_last_output() {
        // Same thread: the second writer reuses the first one's memory.
        let (_, first) = place_words(&[1, 2, 3]);
        let (at, second) = place_words(&[3, 2]);
        assert_eq!(at, [4, 8], "no value may be found in the last output");
        assert_eq!(first.len(), 16);
        assert_eq!(second, [[0xAA; 4], [3, 0, 0, 0], [2, 0, 0, 0]].concat());
    }

    /// A thread's kept writer lets its memory go after a run of outputs
    /// far shorter than the longest it made, and keeps it while the sizes
    /// are mixed (a long one now and then).
    #[test]
    fn memory_grown_by_a_long_output_goes_after_a_run_of_short_ones() {
        std::thread::spawn(|| {
            let output = |n: usize| {
                let mut w = Writer::new(Endian::Little, 0, 0);
                let peak = w.peak_len;
                w.put_zeros(n);
                assert_eq!(w.into_bytes().len(), n);
                peak
            };
            output(1 << 16);
            for i in 0..3 * SHORT_RUNS_BEFORE_FRESH {
                let long = i % SHORT_RUNS_BEFORE_FRESH == SHORT_RUNS_BEFORE_FRESH - 1;
                assert_eq!(
                    output(if long { 1 << 16 } else { 16 }),
                    1 << 16,
                    "kept at {i}"
                );
            }
            for _ in 0..SHORT_RUNS_BEFORE_FRESH {
                assert_eq!(output(16), 1 << 16);
            }
            assert_eq!(output(16), 0, "new memory after the run of short outputs");
            assert_eq!(output(16), 16);
        })
        .join()
        .expect("the test thread");
    }

    /// `place_words` through the thread's lent writer.
    fn place_words_lent(words: &[u32]) -> (Vec<u64>, Vec<u8>) {
        let mut at = Vec::new();
        let out = Writer::lend(Endian::Little, 0, 1, |w| {
            w.put_u32(0xAAAA_AAAA);
            w.begin_section(0, 4, Dedup::ByteSearch { align: 4 });
            for &v in words {
                let s = w.begin_value(4);
                w.put_u32(v);
                at.push(w.end_value(s, 4));
            }
            w.end_section(4);
            Ok(())
        })
        .unwrap();
        (at, out)
    }

    /// The lent writer is emptied between outputs (its pools too), also
    /// after an output that failed half-way; an output made while it is
    /// lent (an encode inside another's hook) gets a writer of its own and
    /// leaves the outer one's bytes alone.
    #[test]
    fn a_lent_writer_remembers_nothing_of_the_last_output() {
        std::thread::spawn(|| {
            let (_, first) = place_words_lent(&[1, 2, 3]);
            assert_eq!(first.len(), 16);
            let (at, second) = place_words_lent(&[3, 2]);
            assert_eq!(at, [4, 8], "no value may be found in the last output");
            assert_eq!(second, [[0xAA; 4], [3, 0, 0, 0], [2, 0, 0, 0]].concat());

            let failed = Writer::lend(Endian::Little, 0, 1, |w| {
                w.put_u32(0xBBBB_BBBB);
                w.begin_section(0, 4, Dedup::ByteSearch { align: 4 });
                let s = w.begin_value(4);
                w.put_u32(2);
                w.end_value(s, 4);
                Err(EncodeError::new("test", "half-way".to_string()))
            });
            assert!(failed.is_err());
            let (at, third) = place_words_lent(&[2]);
            assert_eq!(at, [4], "a failed output's values are gone too");
            assert_eq!(third, [[0xAA; 4], [2, 0, 0, 0]].concat());

            let mut inner = Vec::new();
            let outer = Writer::lend(Endian::Big, 0, 0, |w| {
                w.put_u16(0x0102);
                inner = place_words_lent(&[7]).1;
                w.put_u16(0x0304);
                Ok(())
            })
            .unwrap();
            assert_eq!(outer, [1, 2, 3, 4]);
            assert_eq!(inner, [[0xAA; 4], [7, 0, 0, 0]].concat());
        })
        .join()
        .expect("the test thread");
    }

    /// A lent writer keeps its memory, and lets it go, as a kept one does:
    /// not at all past [`KEEP_CAPACITY`], and after a run of far shorter
    /// outputs.
    #[test]
    fn a_lent_writer_lets_a_large_output_s_memory_go() {
        std::thread::spawn(|| {
            let output = |n: usize| {
                let mut peak = 0;
                let out = Writer::lend(Endian::Little, 0, 0, |w| {
                    peak = w.peak_len;
                    w.put_zeros(n);
                    Ok(())
                })
                .unwrap();
                assert_eq!(out.len(), n);
                peak
            };
            output(1 << 16);
            assert_eq!(output(16), 1 << 16, "kept");
            output(KEEP_CAPACITY + 1);
            assert_eq!(output(16), 0, "let go after an output past the cap");
            output(1 << 16);
            for _ in 0..SHORT_RUNS_BEFORE_FRESH {
                assert_eq!(output(16), 1 << 16);
            }
            assert_eq!(output(16), 0, "new memory after the run of short outputs");
        })
        .join()
        .expect("the test thread");
    }

    #[test]
    fn bytes_then_zeros_writes_exactly_the_count() {
        for zeros in [0, 1, 15, 16, 17, 40] {
            let mut w = Writer::new(Endian::Little, 0, 0);
            w.put_u8(7);
            w.put_bytes_then_zeros(b"abc", zeros);
            w.put_u8(9);
            let mut want = vec![7, b'a', b'b', b'c'];
            want.resize(4 + zeros, 0);
            want.push(9);
            assert_eq!(w.into_bytes(), want, "{zeros}");
        }
    }
}
