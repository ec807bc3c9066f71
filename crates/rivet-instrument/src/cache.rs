//! The per-run cache of instrumented classes: [`instrument_cached`] instruments a classpath
//! into a directory under a cache root, named after a key over the inputs (every input file's
//! path, size and modification time), the configuration and the runtime, and reuses that
//! directory while the key is unchanged. Directories are built under a temporary name and
//! renamed into place, so a reader never sees half a cache. A run holds a lease on the entry it
//! uses, and one that creates an entry removes the least recently used ones beyond the
//! configured limit that no run holds (`cache_lru`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use crate::cache_lru::{evict, lock_path, CacheLease, ENTRY_PREFIX};

use crate::error::InstrumentError;
use crate::job::{instrument_classpath, walk, InstrumentConfig, InstrumentReport, PROBES_TSV};
use crate::probes::ProbeMap;
use crate::runtime::runtime_fingerprint;

/// Bumped when the instrumenter's output changes for the same inputs.
const FORMAT: u32 = 4;
/// The file holding a cache directory's full key (written last).
const KEY_FILE: &str = "rivet-cache.key";
const DIR_PREFIX: &str = ENTRY_PREFIX;

/// An instrumented classpath ready for the workers: put `dir` first on their classpath.
#[derive(Debug, Clone)]
pub struct InstrumentedClasspath {
    pub dir: PathBuf,
    pub probes: ProbeMap,
    /// True when an existing cache directory was reused.
    pub reused: bool,
    /// What instrumenting did; None when the cache was reused.
    pub report: Option<InstrumentReport>,
    /// Keeps `dir` from being evicted while it lives: hold it as long as workers use `dir`.
    pub lease: Arc<CacheLease>,
}

/// 64-bit FNV-1a.
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

fn stamp(path: &Path) -> Result<(u64, u128), InstrumentError> {
    let m = std::fs::metadata(path).map_err(|e| InstrumentError::io(path, e))?;
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok((m.len(), mtime))
}

/// The cache key of instrumenting `entries` with `config`: a text naming every input.
pub fn cache_key(
    entries: &[PathBuf],
    config: &InstrumentConfig,
) -> Result<String, InstrumentError> {
    let mut key = format!(
        "rivet-instrument {} format {FORMAT} runtime {:016x}\nscope {}\n",
        env!("CARGO_PKG_VERSION"),
        runtime_fingerprint(),
        config.scope.key()
    );
    for e in entries {
        let abs = std::fs::canonicalize(e).map_err(|err| InstrumentError::io(e, err))?;
        if abs.is_dir() {
            let _ = writeln!(key, "dir {}", abs.display());
            let mut files = Vec::new();
            walk(&abs, "", 0, &mut files)?;
            for (rel, path) in files {
                let (size, mtime) = stamp(&path)?;
                let _ = writeln!(key, "  {rel} {size} {mtime}");
            }
        } else {
            let (size, mtime) = stamp(&abs)?;
            let _ = writeln!(key, "file {} {size} {mtime}", abs.display());
        }
    }
    Ok(key)
}

/// Instruments `entries` into a directory under `cache_root`, or reuses the directory a
/// previous call built for the same inputs and configuration.
pub fn instrument_cached(
    entries: &[PathBuf],
    cache_root: &Path,
    config: &InstrumentConfig,
) -> Result<InstrumentedClasspath, InstrumentError> {
    let key = cache_key(entries, config)?;
    let mut h = Fnv::new();
    h.write(key.as_bytes());
    let dir = cache_root.join(format!("{DIR_PREFIX}{:016x}", h.finish()));
    std::fs::create_dir_all(cache_root).map_err(|e| InstrumentError::io(cache_root, e))?;
    // Held before the entry is looked at, so that no eviction removes it from under us.
    let lease = Arc::new(CacheLease::acquire(&lock_path(&dir))?);
    if let Some(probes) = reusable(&dir, &key) {
        tracing::debug!(dir = %dir.display(), "reusing instrumented classes");
        return Ok(InstrumentedClasspath {
            dir,
            probes,
            reused: true,
            report: None,
            lease,
        });
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = cache_root.join(format!(
        ".{DIR_PREFIX}{:016x}.tmp-{}-{nanos}",
        h.finish(),
        std::process::id()
    ));
    let built = instrument_classpath(entries, &tmp, config).and_then(|report| {
        std::fs::write(tmp.join(KEY_FILE), &key)
            .map_err(|e| InstrumentError::io(tmp.join(KEY_FILE), e))?;
        Ok(report)
    });
    let report = match built {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process may have built the same cache meanwhile: use it if it is whole.
        if let Some(probes) = reusable(&dir, &key) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Ok(InstrumentedClasspath {
                dir,
                probes,
                reused: true,
                report: None,
                lease,
            });
        }
        // A stale or broken directory of the same name: replace it.
        let _ = std::fs::remove_dir_all(&dir);
        if let Err(e) = std::fs::rename(&tmp, &dir) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(InstrumentError::io(dir, e));
        }
    }
    // A new entry: the least recently used ones beyond the limit go.
    let evicted = evict(cache_root, &config.cache);
    if !evicted.is_empty() {
        tracing::info!(
            entries = evicted.len(),
            root = %cache_root.display(),
            "least recently used cache entries removed"
        );
    }
    Ok(InstrumentedClasspath {
        probes: report.probes.clone(),
        dir,
        reused: false,
        report: Some(report),
        lease,
    })
}

/// The probe map of a complete cache directory built for exactly `key`.
fn reusable(dir: &Path, key: &str) -> Option<ProbeMap> {
    let stored = std::fs::read_to_string(dir.join(KEY_FILE)).ok()?;
    if stored != key {
        return None;
    }
    let tsv_path = dir.join(PROBES_TSV);
    let tsv = std::fs::read_to_string(&tsv_path).ok()?;
    match ProbeMap::from_tsv(&tsv, &tsv_path) {
        Ok(map) => Some(map),
        Err(e) => {
            tracing::warn!(error = %e, "cached probe map unreadable; instrumenting again");
            None
        }
    }
}
