//! The worker protocol: compact binary frames between Rivet (Rust) and a worker JVM's harness
//! (`java/rivet/worker`), on the worker's stdin (requests) and real stdout (responses).
//!
//! # Framing
//!
//! Every message is a frame: a `u32` payload length (1 ..= [`MAX_FRAME`]) and the payload, whose
//! first byte is the message kind. All integers are big-endian; `f32`/`f64` travel as their raw
//! IEEE bits (`u32`/`u64`). A `str` is a `u32` byte length and that many bytes of UTF-8 (NUL and
//! any Unicode allowed). `NONE` is `0xFFFF_FFFF`.
//!
//! # Requests (Rust → worker)
//!
//! | kind | name | body |
//! |---|---|---|
//! | 1 | `BATCH` | `u32` batch id, `u32` member count, members, `u32` test count, tests |
//! | 2 | `PING` | `u64` nonce |
//! | 3 | `SHUTDOWN` | — |
//!
//! A member is `str` owner (internal name), `str` name, `str` descriptor; a batch lists each
//! member it uses once and statements refer to it by index, so that a batch of 1,000 tests over
//! one class carries each name once and the worker resolves each once. A test is `u32` statement
//! count and its statements; a statement is a `u8` tag and:
//!
//! | tag | statement | body |
//! |---|---|---|
//! | 0 | primitive | `u8` descriptor char (`Z B C S I J F D`), value: `u8`, `i8`, `u16`, `i16`, `i32`, `i64`, `f32` bits, `f64` bits |
//! | 1 | string | `str` |
//! | 2 | null | `str` field descriptor |
//! | 3 | array | `str` component descriptor, `u32` n, n × `u32` statement |
//! | 4 | construct | `u32` member, `u32` n, n × `u32` argument statement |
//! | 5 | call | `u32` member, `u32` receiver statement or `NONE` (static), `u32` n, n × `u32` argument |
//! | 6 | field write | `u32` member, `u32` receiver or `NONE` (static), `u32` value statement |
//! | 7 | class literal | `str` field descriptor or `V` |
//! | 9 | constant | `u32` member (a static field), its value read |
//! | 10 | scratch | `str` descriptor (`File`, `Path` or `String`), `str` relative path beneath the test's own temporary directory, `u8` entry (0 missing, 1 file, 2 directory); a file: `str` content; a directory: `u32` count, then per file `str` name, `str` content (contents UTF-8) |
//! | 8 | lambda | `str` functional interface (internal name), `u32` member (its abstract method), `u8` body (0 returns a value, 1 its first argument, 2 nothing, 3 throws `IllegalStateException`), `u32` value statement for body 0, else `NONE` |
//!
//! Statement references must point to earlier statements of the same test.
//!
//! # Responses (worker → Rust)
//!
//! | kind | name | body |
//! |---|---|---|
//! | 0x80 | `READY` | 8 bytes `RIVETWKR`, `u32` protocol version, `str` java.version, `str` java.vm.name |
//! | 0x81 | `RESULT` | `u32` batch id, `u32` test index in the batch, `u64` duration (ns), `u32` threads left behind, `u32` n, n × outcome, `u32` p, p × probe, `u32` k, k × `str` seed |
//! | 0x82 | `PONG` | `u64` nonce |
//! | 0x83 | `ERROR` | `u32` batch id or `NONE`, `str` message (a request the harness could not decode; none of its tests ran) |
//!
//! `READY` is sent once when the harness starts. A batch yields one `RESULT` per test, in order,
//! each flushed as soon as its test finishes, so that the tests that finished before a worker
//! died are known. An outcome is a `u8` tag: 0 not run; 1 normal and a value; 2 threw, `str`
//! binary class name, `u8` has-message, [`str` message]. A value is a `u8` tag: 0 void, 1
//! boolean `u8`, 2 byte, 3 char `u16`, 4 short, 5 int, 6 long, 7 float bits, 8 double bits,
//! 9 null, 10 string `str`, 11 object `u32` identity (objects numbered per test in order of first
//! sight) and `str` runtime class (binary name). Strings in results are cut to 65,536 chars. A
//! probe is `u32` probe id, `u32` times taken (0: never), `f64` minimum distance bits. After
//! the probes: `u32` k, k × `str`, the strings the code under test compared, searched for or
//! parsed (dynamic seeding; at most 32 per test, each at most 200 chars).

use std::collections::HashMap;
use std::io::{self, Read};
use std::time::Duration;

use rivet_testcase::{MemberRef, ObservationSpec, StatementOutcome, TestCase, ValueSummary};

#[path = "observe_wire.rs"]
pub mod observe_wire;
pub use observe_wire::{observations, RawCall};
#[path = "snapshot_wire.rs"]
pub mod snapshot_wire;
pub use snapshot_wire::{snapshots, RawSnapshots};

use rivet_testcase::{ClassName, ProbeId};

/// Version sent in `READY`; Rivet refuses a harness of another version.
pub const PROTOCOL_VERSION: u32 = 4;
/// The first bytes of a `READY` body.
pub const MAGIC: &[u8; 8] = b"RIVETWKR";
/// The largest frame payload either side accepts (bytes).
pub const MAX_FRAME: usize = 256 << 20;
pub use rivet_testcase::{EXIT_REQUESTED_CLASS, UNRUNNABLE_CLASS};
/// What a test threw when the harness's probes ended it at its deadline: it timed out, and the
/// JVM goes on.
pub const OVERRUN_CLASS: &str = "rivet.runtime.Overrun";
/// What the harness reports when a test overran and the code under test caught the `Overrun`
/// (or static state carries over): it timed out, and the JVM is replaced.
pub const OVERRUN_CAUGHT_CLASS: &str = "rivet.worker.Runner$OverrunCaught";

const NONE: u32 = u32::MAX;

const REQ_BATCH: u8 = 1;
const REQ_PING: u8 = 2;
const REQ_SHUTDOWN: u8 = 3;
const REQ_LIMITS: u8 = 4;
const RESP_READY: u8 = 0x80;
const RESP_RESULT: u8 = 0x81;
const RESP_PONG: u8 = 0x82;
const RESP_ERROR: u8 = 0x83;

/// Identifies a batch on one worker, so that stale results are never taken for current ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BatchId(pub u32);

/// A request, as decoded by [`decode_request`].
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Batch {
        id: BatchId,
        tests: Vec<TestCase>,
        /// What to observe at calls of target members (empty: the section is absent).
        observation: ObservationSpec,
    },
    Ping(u64),
    Shutdown,
    /// The time limit the Rust side gives each following test (and whether it adapts to the
    /// slowest test, as `limit::time_limit`): the harness arms its probes to end a test in a
    /// loop before the limit, so that the JVM need not be replaced; and after `probes` branch
    /// probes (0: no such budget, see `TestLimit::Probes`).
    Limits {
        limit: Duration,
        adaptive: bool,
        probes: u64,
    },
}

/// A response from a worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    Ready(Ready),
    Result(TestResult),
    Pong(u64),
    /// The worker could not decode a request; none of that batch's tests ran.
    Error {
        batch: Option<BatchId>,
        message: String,
    },
}

/// The handshake a worker sends when it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Ready {
    pub version: u32,
    pub java_version: String,
    pub vm_name: String,
}

/// What the worker reports for one test of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    pub batch: BatchId,
    /// Position of the test in its batch.
    pub index: u32,
    pub duration_ns: u64,
    /// Threads the code under test has left running (an estimate).
    pub stray_threads: u32,
    pub outcomes: Vec<StatementOutcome>,
    pub probes: Vec<ProbeRecord>,
    /// Strings the code under test compared, searched for or parsed (dynamic seeding).
    pub seeds: Vec<String>,
    /// The observed calls (empty when the batch observed nothing).
    pub observed: Vec<RawCall>,
    /// The snapshots taken (empty when the batch asked for none).
    pub snapshots: RawSnapshots,
}

/// One probe touched by a test; `hits`: times its branch was taken (JaCoCo's points: once).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeRecord {
    pub probe: ProbeId,
    pub hits: u32,
    /// Minimum branch distance seen (0 when taken).
    pub distance: f64,
}

/// A frame that does not follow the protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("malformed frame at byte {offset}: {what}")]
    Malformed { offset: usize, what: String },
    #[error("frame of {size} bytes exceeds the limit of {MAX_FRAME}")]
    TooLarge { size: usize },
}

// ---------------------------------------------------------------------------------------------
// Encoding

/// Builds one frame: reserves the length prefix, which [`Enc::finish`] fills in.
struct Enc {
    buf: Vec<u8>,
}

impl Enc {
    fn new(kind: u8, capacity: usize) -> Self {
        let mut buf = Vec::with_capacity(capacity + 5);
        buf.extend_from_slice(&[0, 0, 0, 0, kind]);
        Enc { buf }
    }
    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }
    /// A length or count; anything over `u32::MAX` makes the frame too large anyway.
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    fn str(&mut self, s: &str) {
        self.len(s.len());
        self.buf.extend_from_slice(s.as_bytes());
    }
    fn finish(mut self) -> Result<Vec<u8>, ProtocolError> {
        let size = self.buf.len() - 4;
        if size > MAX_FRAME {
            return Err(ProtocolError::TooLarge { size });
        }
        self.buf[..4].copy_from_slice(&(size as u32).to_be_bytes());
        Ok(self.buf)
    }
}

/// Encodes a `BATCH` frame (length prefix included) of the given tests.
pub fn encode_batch<'a>(
    id: BatchId,
    tests: impl IntoIterator<Item = &'a TestCase>,
) -> Result<Vec<u8>, ProtocolError> {
    static NOTHING: ObservationSpec = ObservationSpec {
        targets: Vec::new(),
        trace: false,
        snapshot: None,
    };
    encode_batch_observing(id, tests, &NOTHING)
}

/// Encodes a `BATCH` frame that also asks the harness to observe `spec`'s targets.
pub fn encode_batch_observing<'a>(
    id: BatchId,
    tests: impl IntoIterator<Item = &'a TestCase>,
    spec: &'a ObservationSpec,
) -> Result<Vec<u8>, ProtocolError> {
    let tests: Vec<&TestCase> = tests.into_iter().collect();
    let mut table = MemberTable::default();
    let mut member_index = |m: &'a MemberRef| table.index(m);
    let mut body = Enc {
        buf: Vec::with_capacity(tests.iter().map(|t| t.len() * 16).sum()),
    };
    body.len(tests.len());
    for t in tests.iter().copied() {
        body.len(t.statements.len());
        for s in &t.statements {
            encode_statement(&mut body, s, &mut member_index);
        }
    }
    if !spec.is_empty() {
        observe_wire::encode_spec(&mut body, spec, &mut member_index);
    }
    let mut e = Enc::new(REQ_BATCH, body.buf.len() + table.list.len() * 48 + 8);
    e.u32(id.0);
    e.len(table.list.len());
    for m in &table.list {
        e.str(m.owner.internal());
        e.str(&m.name);
        e.str(&m.descriptor);
    }
    e.buf.extend_from_slice(&body.buf);
    e.finish()
}

/// The members a batch uses, each listed once: found by a scan while few (the usual case: a
/// batch exercises one class), by hashing beyond that.
#[derive(Default)]
struct MemberTable<'a> {
    list: Vec<&'a MemberRef>,
    hashed: HashMap<&'a MemberRef, u32>,
}

impl<'a> MemberTable<'a> {
    const SCAN: usize = 16;

    fn index(&mut self, m: &'a MemberRef) -> u32 {
        if self.list.len() <= Self::SCAN {
            if let Some(i) = self
                .list
                .iter()
                .position(|t| std::ptr::eq(*t, m) || *t == m)
            {
                return i as u32;
            }
        } else if let Some(&i) = self.hashed.get(m) {
            return i;
        }
        self.list.push(m);
        let i = self.list.len() as u32 - 1;
        if self.list.len() > Self::SCAN {
            if self.hashed.is_empty() {
                self.hashed = self
                    .list
                    .iter()
                    .enumerate()
                    .map(|(i, m)| (*m, i as u32))
                    .collect();
            } else {
                self.hashed.insert(m, i);
            }
        }
        i
    }
}

/// Encodes a `PING` frame.
pub fn encode_ping(nonce: u64) -> Vec<u8> {
    let mut e = Enc::new(REQ_PING, 8);
    e.u64(nonce);
    e.finish().unwrap_or_default()
}

/// Encodes a `LIMITS` frame.
pub fn encode_limits(limit: Duration, adaptive: bool, probes: u64) -> Vec<u8> {
    let mut e = Enc::new(REQ_LIMITS, 17);
    e.u64(u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX));
    e.u8(u8::from(adaptive));
    e.u64(probes);
    e.finish().unwrap_or_default()
}

/// Encodes a `SHUTDOWN` frame.
pub fn encode_shutdown() -> Vec<u8> {
    Enc::new(REQ_SHUTDOWN, 0).finish().unwrap_or_default()
}

/// Encodes a response frame as the harness does (for tests and fake workers).
pub fn encode_response(r: &Response) -> Result<Vec<u8>, ProtocolError> {
    let e = match r {
        Response::Ready(ready) => {
            let mut e = Enc::new(RESP_READY, 64);
            e.buf.extend_from_slice(MAGIC);
            e.u32(ready.version);
            e.str(&ready.java_version);
            e.str(&ready.vm_name);
            e
        }
        Response::Result(t) => {
            let mut e = Enc::new(RESP_RESULT, 32 + t.outcomes.len() * 8 + t.probes.len() * 16);
            e.u32(t.batch.0);
            e.u32(t.index);
            e.u64(t.duration_ns);
            e.u32(t.stray_threads);
            e.len(t.outcomes.len());
            for o in &t.outcomes {
                encode_outcome(&mut e, o);
            }
            e.len(t.probes.len());
            for p in &t.probes {
                e.u32(p.probe.0);
                e.u32(p.hits);
                e.u64(p.distance.to_bits());
            }
            e.len(t.seeds.len());
            for s in &t.seeds {
                e.str(s);
            }
            if !t.observed.is_empty() || !t.snapshots.is_empty() {
                observe_wire::encode_calls(&mut e, &t.observed);
            }
            if !t.snapshots.is_empty() {
                snapshot_wire::encode_snapshots(&mut e, &t.snapshots);
            }
            e
        }
        Response::Pong(nonce) => {
            let mut e = Enc::new(RESP_PONG, 8);
            e.u64(*nonce);
            e
        }
        Response::Error { batch, message } => {
            let mut e = Enc::new(RESP_ERROR, message.len() + 8);
            e.u32(batch.map_or(NONE, |b| b.0));
            e.str(message);
            e
        }
    };
    e.finish()
}

fn encode_outcome(e: &mut Enc, o: &StatementOutcome) {
    match o {
        StatementOutcome::NotRun => e.u8(0),
        StatementOutcome::Normal(v) => {
            e.u8(1);
            match v {
                ValueSummary::Void => e.u8(0),
                ValueSummary::Boolean(b) => {
                    e.u8(1);
                    e.u8(*b as u8);
                }
                ValueSummary::Byte(b) => {
                    e.u8(2);
                    e.u8(*b as u8);
                }
                ValueSummary::Char(c) => {
                    e.u8(3);
                    e.u16(*c);
                }
                ValueSummary::Short(s) => {
                    e.u8(4);
                    e.u16(*s as u16);
                }
                ValueSummary::Int(i) => {
                    e.u8(5);
                    e.u32(*i as u32);
                }
                ValueSummary::Long(l) => {
                    e.u8(6);
                    e.u64(*l as u64);
                }
                ValueSummary::Float(f) => {
                    e.u8(7);
                    e.u32(f.to_bits());
                }
                ValueSummary::Double(d) => {
                    e.u8(8);
                    e.u64(d.to_bits());
                }
                ValueSummary::Null => e.u8(9),
                ValueSummary::String(s) => {
                    e.u8(10);
                    e.str(s);
                }
                ValueSummary::Object { identity, class } => {
                    e.u8(11);
                    e.u32(*identity);
                    e.str(&class.binary());
                }
            }
        }
        StatementOutcome::Threw { class, message } => {
            e.u8(2);
            e.str(&class.binary());
            match message {
                Some(m) => {
                    e.u8(1);
                    e.str(m);
                }
                None => e.u8(0),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding

/// Reads one frame's payload; `Ok(None)` at a clean end of stream before a frame.
pub fn read_frame(r: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let n = u32::from_be_bytes(len) as usize;
    if n == 0 || n > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame length {n} out of range (stray output on the worker's stdout?)"),
        ));
    }
    let mut payload = vec![0u8; n];
    r.read_exact(&mut payload)?;
    Ok(Some(payload))
}

struct Dec<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Dec<'a> {
    fn err<T>(&self, what: impl Into<String>) -> Result<T, ProtocolError> {
        Err(ProtocolError::Malformed {
            offset: self.pos,
            what: what.into(),
        })
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], ProtocolError> {
        if self.buf.len() - self.pos < n {
            return self.err(format!(
                "{n} bytes wanted, {} left",
                self.buf.len() - self.pos
            ));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], ProtocolError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, ProtocolError> {
        Ok(self.array::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, ProtocolError> {
        Ok(u16::from_be_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, ProtocolError> {
        Ok(u32::from_be_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, ProtocolError> {
        Ok(u64::from_be_bytes(self.array()?))
    }
    /// A count of items of at least `min_size` bytes each, checked against what is left.
    fn count(&mut self, min_size: usize) -> Result<usize, ProtocolError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.buf.len() - self.pos {
            return self.err(format!("count {n} exceeds the frame"));
        }
        Ok(n)
    }
    fn str(&mut self) -> Result<String, ProtocolError> {
        let n = self.count(1)?;
        let at = self.pos;
        let bytes = self.take(n)?;
        String::from_utf8(bytes.to_vec()).map_err(|e| ProtocolError::Malformed {
            offset: at,
            what: format!("invalid UTF-8: {e}"),
        })
    }
    fn end(&self) -> Result<(), ProtocolError> {
        if self.pos != self.buf.len() {
            return self.err(format!(
                "{} bytes after the message",
                self.buf.len() - self.pos
            ));
        }
        Ok(())
    }
}

/// Decodes a request payload (what the harness does, in Rust: for tests and tools).
pub fn decode_request(payload: &[u8]) -> Result<Request, ProtocolError> {
    let mut d = Dec {
        buf: payload,
        pos: 0,
    };
    let r = match d.u8()? {
        REQ_BATCH => {
            let id = BatchId(d.u32()?);
            let n = d.count(12)?;
            let mut members = Vec::with_capacity(n);
            for _ in 0..n {
                let owner = ClassName::from_internal(&d.str()?);
                let name = d.str()?;
                let descriptor = d.str()?;
                members.push(MemberRef {
                    owner,
                    name,
                    descriptor,
                });
            }
            let count = d.count(4)?;
            let mut tests = Vec::with_capacity(count);
            for _ in 0..count {
                let n = d.count(1)?;
                let mut t = TestCase::new();
                for i in 0..n {
                    t.statements
                        .push(decode_statement(&mut d, i as u32, &members)?);
                }
                tests.push(t);
            }
            let observation = if d.pos < d.buf.len() {
                observe_wire::decode_spec(&mut d, &members)?
            } else {
                ObservationSpec::default()
            };
            Request::Batch {
                id,
                tests,
                observation,
            }
        }
        REQ_PING => Request::Ping(d.u64()?),
        REQ_SHUTDOWN => Request::Shutdown,
        REQ_LIMITS => Request::Limits {
            limit: Duration::from_nanos(d.u64()?),
            adaptive: d.u8()? != 0,
            probes: d.u64()?,
        },
        k => return d.err(format!("unknown request kind {k}")),
    };
    d.end()?;
    Ok(r)
}

/// Decodes a response payload.
pub fn decode_response(payload: &[u8]) -> Result<Response, ProtocolError> {
    let mut d = Dec {
        buf: payload,
        pos: 0,
    };
    let r = match d.u8()? {
        RESP_READY => {
            if d.take(8)? != MAGIC {
                return d.err("bad magic in READY");
            }
            Response::Ready(Ready {
                version: d.u32()?,
                java_version: d.str()?,
                vm_name: d.str()?,
            })
        }
        RESP_RESULT => {
            let batch = BatchId(d.u32()?);
            let index = d.u32()?;
            let duration_ns = d.u64()?;
            let stray_threads = d.u32()?;
            let n = d.count(1)?;
            let mut outcomes = Vec::with_capacity(n);
            for _ in 0..n {
                outcomes.push(decode_outcome(&mut d)?);
            }
            let p = d.count(16)?;
            let mut probes = Vec::with_capacity(p);
            for _ in 0..p {
                probes.push(ProbeRecord {
                    probe: ProbeId(d.u32()?),
                    hits: d.u32()?,
                    distance: f64::from_bits(d.u64()?),
                });
            }
            let k = d.count(4)?;
            let mut seeds = Vec::with_capacity(k);
            for _ in 0..k {
                seeds.push(d.str()?);
            }
            let observed = if d.pos < d.buf.len() {
                observe_wire::decode_calls(&mut d)?
            } else {
                Vec::new()
            };
            let snapshots = if d.pos < d.buf.len() {
                snapshot_wire::decode_snapshots(&mut d)?
            } else {
                RawSnapshots::default()
            };
            Response::Result(TestResult {
                batch,
                index,
                duration_ns,
                stray_threads,
                outcomes,
                probes,
                seeds,
                observed,
                snapshots,
            })
        }
        RESP_PONG => Response::Pong(d.u64()?),
        RESP_ERROR => {
            let b = d.u32()?;
            Response::Error {
                batch: (b != NONE).then_some(BatchId(b)),
                message: d.str()?,
            }
        }
        k => return d.err(format!("unknown response kind {k:#x}")),
    };
    d.end()?;
    Ok(r)
}

fn decode_outcome(d: &mut Dec) -> Result<StatementOutcome, ProtocolError> {
    Ok(match d.u8()? {
        0 => StatementOutcome::NotRun,
        1 => StatementOutcome::Normal(match d.u8()? {
            0 => ValueSummary::Void,
            1 => ValueSummary::Boolean(d.u8()? != 0),
            2 => ValueSummary::Byte(d.u8()? as i8),
            3 => ValueSummary::Char(d.u16()?),
            4 => ValueSummary::Short(d.u16()? as i16),
            5 => ValueSummary::Int(d.u32()? as i32),
            6 => ValueSummary::Long(d.u64()? as i64),
            7 => ValueSummary::Float(f32::from_bits(d.u32()?)),
            8 => ValueSummary::Double(f64::from_bits(d.u64()?)),
            9 => ValueSummary::Null,
            10 => ValueSummary::String(d.str()?),
            11 => ValueSummary::Object {
                identity: d.u32()?,
                class: ClassName::from_binary(&d.str()?),
            },
            t => return d.err(format!("unknown value tag {t}")),
        }),
        2 => {
            let class = ClassName::from_binary(&d.str()?);
            let message = match d.u8()? {
                0 => None,
                _ => Some(d.str()?),
            };
            StatementOutcome::Threw { class, message }
        }
        t => return d.err(format!("unknown outcome tag {t}")),
    })
}

#[path = "protocol_statements.rs"]
mod statements;
use statements::{decode_statement, encode_statement};

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
