//! Keeping the cache of instrumented classes bounded. A run holds a shared lock on its entry's
//! lock file (`<entry>.lock`, beside the entry's directory) for as long as it uses the entry,
//! and touches the file, whose modification time is so the entry's last use. A run that has
//! created an entry then removes the least recently used entries beyond [`CacheLimit::keep`],
//! never one whose lock another run holds (it takes an exclusive lock without waiting, or
//! leaves the entry), nor one used within [`CacheLimit::grace`] (which also spares the entries
//! of Rivet versions before the locks while they may still run). An entry goes by renaming its
//! directory away first, so a reader never sees half of one; its lock file goes last.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rustix::fs::{flock, FlockOperation};

use crate::error::InstrumentError;

/// How many entries a cache root keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheLimit {
    /// Entries kept, the most recently used (the one just created among them).
    pub keep: usize,
    /// Entries used more recently than this are kept whatever their number.
    pub grace: Duration,
}

impl Default for CacheLimit {
    /// Sixteen entries (a few hundred kilobytes to a few megabytes each for a project's
    /// classes), an hour's grace.
    fn default() -> CacheLimit {
        CacheLimit {
            keep: 16,
            grace: Duration::from_secs(3600),
        }
    }
}

/// The directory names of cache entries start with this; their lock files end in `.lock`.
pub(crate) const ENTRY_PREFIX: &str = "rivet-instrumented-";
const LOCK_SUFFIX: &str = ".lock";
/// Left by a build or an eviction that died: removed after the grace period.
const LEFTOVER_PREFIX: &str = ".rivet-instrumented-";

/// The lock file of the entry in `dir`.
pub(crate) fn lock_path(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(LOCK_SUFFIX);
    dir.with_file_name(name)
}

/// A run's hold on a cache entry: while it lives, no run evicts the entry.
#[derive(Debug)]
pub struct CacheLease {
    /// Holds the shared lock until dropped.
    _file: File,
    pub lock: PathBuf,
}

fn open_lock(path: &Path) -> Result<File, InstrumentError> {
    File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| InstrumentError::io(path, e))
}

/// True when `file` is the file now at `path` (an eviction may have removed the lock file
/// between our opening and locking it).
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

impl CacheLease {
    /// A shared lock on `lock` (created if missing), waiting while an eviction holds it; the
    /// file is touched as the entry's last use.
    pub fn acquire(lock: &Path) -> Result<CacheLease, InstrumentError> {
        loop {
            let file = open_lock(lock)?;
            flock(&file, FlockOperation::LockShared)
                .map_err(|e| InstrumentError::io(lock, e.into()))?;
            if same_file(&file, lock) {
                if let Err(e) = file.set_modified(SystemTime::now()) {
                    tracing::debug!(lock = %lock.display(), error = %e, "cache entry not touched");
                }
                return Ok(CacheLease {
                    _file: file,
                    lock: lock.to_path_buf(),
                });
            }
            // Evicted meanwhile: lock the file now at the path.
        }
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The cache entries under `root` with their last use (their lock file's time, else their
/// directory's), most recent first.
fn entries(root: &Path) -> Vec<(PathBuf, SystemTime)> {
    let Ok(read) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, SystemTime)> = read
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(ENTRY_PREFIX)
                && !name.ends_with(LOCK_SUFFIX)
                && e.file_type().is_ok_and(|t| t.is_dir())
        })
        .map(|e| {
            let dir = e.path();
            let used = modified(&lock_path(&dir))
                .or_else(|| modified(&dir))
                .unwrap_or(SystemTime::UNIX_EPOCH);
            (dir, used)
        })
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

fn recent(time: SystemTime, now: SystemTime, grace: Duration) -> bool {
    now.duration_since(time).map_or(true, |age| age < grace)
}

/// Removes the least recently used entries under `root` beyond `limit.keep` that no run holds
/// and none used within the grace period, and leftovers of dead builds older than it; returns
/// the entries removed.
pub fn evict(root: &Path, limit: &CacheLimit) -> Vec<PathBuf> {
    let now = SystemTime::now();
    let mut removed = Vec::new();
    for (dir, used) in entries(root).into_iter().skip(limit.keep) {
        if recent(used, now, limit.grace) {
            continue;
        }
        let lock = lock_path(&dir);
        let before = modified(&lock);
        let Ok(file) = open_lock(&lock) else {
            continue;
        };
        if flock(&file, FlockOperation::NonBlockingLockExclusive).is_err()
            || !same_file(&file, &lock)
        {
            // Another run uses it (or just evicted it).
            continue;
        }
        // A run may have used it and let go since the listing: it is recent again.
        if before.is_some() && modified(&lock) != before {
            continue;
        }
        let nanos = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        let away = root.join(format!(".{name}.evicted-{}-{nanos}", std::process::id()));
        if std::fs::rename(&dir, &away).is_err() {
            continue;
        }
        if let Err(e) = std::fs::remove_dir_all(&away) {
            tracing::warn!(dir = %away.display(), error = %e, "evicted cache entry not removed");
        }
        let _ = std::fs::remove_file(&lock);
        drop(file);
        tracing::info!(dir = %dir.display(), "cache entry evicted (least recently used)");
        removed.push(dir);
    }
    remove_leftovers(root, now, limit.grace);
    removed
}

/// Half-built or half-removed directories older than the grace period, and lock files whose
/// entry is gone and that no run holds.
fn remove_leftovers(root: &Path, now: SystemTime, grace: Duration) {
    let Ok(read) = std::fs::read_dir(root) else {
        return;
    };
    for e in read.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let old = modified(&path).is_some_and(|t| !recent(t, now, grace));
        if !old {
            continue;
        }
        if name.starts_with(LEFTOVER_PREFIX) && e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(&path);
        } else if let Some(entry) = name
            .strip_suffix(LOCK_SUFFIX)
            .filter(|n| n.starts_with(ENTRY_PREFIX))
        {
            if root.join(entry).exists() {
                continue;
            }
            if let Ok(file) = open_lock(&path) {
                if flock(&file, FlockOperation::NonBlockingLockExclusive).is_ok()
                    && same_file(&file, &path)
                {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(root: &Path, n: u32, age: Duration, with_lock: bool) -> PathBuf {
        let dir = root.join(format!("{ENTRY_PREFIX}{n:016x}"));
        std::fs::create_dir_all(dir.join("a")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join("a/A.class"), b"x").unwrap_or_else(|e| panic!("{e}"));
        let when = SystemTime::now() - age;
        let stamp = if with_lock {
            lock_path(&dir)
        } else {
            dir.clone()
        };
        if with_lock {
            drop(open_lock(&stamp).unwrap_or_else(|e| panic!("{e}")));
        }
        File::open(&stamp)
            .and_then(|f| f.set_modified(when))
            .unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    #[test]
    fn the_least_recently_used_entries_go_but_not_one_in_use_or_within_the_grace() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = tmp.path();
        let hour = Duration::from_secs(3600);
        // Entry k was last used 10 - k hours ago: 9 is the newest.
        let dirs: Vec<PathBuf> = (0..10)
            .map(|k| entry(root, k, hour * (10 - k), k != 1))
            .collect();
        // Another run uses the oldest entry.
        let held = CacheLease::acquire(&lock_path(&dirs[0])).unwrap_or_else(|e| panic!("{e}"));
        // The lease touched it: as another run would have, long ago.
        File::open(&held.lock)
            .and_then(|f| f.set_modified(SystemTime::now() - hour * 20))
            .unwrap_or_else(|e| panic!("{e}"));
        let leftover = root.join(format!("{LEFTOVER_PREFIX}00.tmp-1-2"));
        std::fs::create_dir_all(&leftover).unwrap_or_else(|e| panic!("{e}"));
        File::open(&leftover)
            .and_then(|f| f.set_modified(SystemTime::now() - hour * 2))
            .unwrap_or_else(|e| panic!("{e}"));

        let limit = CacheLimit {
            keep: 4,
            grace: Duration::from_secs(30 * 60),
        };
        let mut removed = evict(root, &limit);
        removed.sort();
        // 9, 8, 7 and 6 are kept; of 0..=5, 0 is in use; 1 (no lock file: an older Rivet's)
        // goes by its directory's time.
        assert_eq!(removed, dirs[1..=5].to_vec());
        for (k, d) in dirs.iter().enumerate() {
            assert_eq!(d.is_dir(), k == 0 || k >= 6, "entry {k}");
            assert_eq!(lock_path(d).exists(), k == 0 || (k >= 6), "lock {k}");
        }
        assert!(!leftover.exists());

        // Let go of entry 0: it goes next time. Entries within the grace stay past the limit.
        drop(held);
        let fresh = entry(root, 10, Duration::from_secs(60), true);
        let limit = CacheLimit {
            keep: 1,
            grace: Duration::from_secs(90 * 60),
        };
        let mut removed = evict(root, &limit);
        removed.sort();
        // Entry 9, used an hour ago, is within the grace; 0 and 6 to 8 are past it.
        assert_eq!(removed, [&dirs[0..1], &dirs[6..=8]].concat(), "{removed:?}");
        assert!(dirs[9].is_dir() && fresh.is_dir());
    }

    #[test]
    fn a_lease_waits_out_an_eviction_and_locks_the_file_left_at_the_path() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dir = entry(tmp.path(), 1, Duration::ZERO, true);
        let lock = lock_path(&dir);
        let first = CacheLease::acquire(&lock).unwrap_or_else(|e| panic!("{e}"));
        // A second run shares the entry.
        let second = CacheLease::acquire(&lock).unwrap_or_else(|e| panic!("{e}"));
        let evictor = open_lock(&lock).unwrap_or_else(|e| panic!("{e}"));
        assert!(flock(&evictor, FlockOperation::NonBlockingLockExclusive).is_err());
        drop((first, second));
        assert!(flock(&evictor, FlockOperation::NonBlockingLockExclusive).is_ok());
        // The evictor removes the lock file: a new lease makes and locks a new one.
        std::fs::remove_file(&lock).unwrap_or_else(|e| panic!("{e}"));
        let third = CacheLease::acquire(&lock).unwrap_or_else(|e| panic!("{e}"));
        assert!(lock.is_file());
        drop(evictor);
        drop(third);
    }
}
