//! The store's checksums (`tabiya.sums`): a bit flipped anywhere in a store's files is an
//! error naming the file, or changes nothing that is read; a crash, a store without sums,
//! damaged sums are verified whole and their sums written again.

use std::collections::BTreeMap;
use std::path::Path;

use tabiya_store::{STORE_FILE, SUMS_FILE, Store, UNIT};

type Contents = BTreeMap<String, Vec<(Vec<u8>, Vec<u8>)>>;

const TABLES: [&str; 3] = ["small", "big", "meta"];

/// A store of three tables: many small entries (leaves and branches), values of several
/// pages (overflow pages), and a few, written in three commits (one of which removes
/// entries), and closed.
fn make(dir: &Path) {
    let store = Store::open(dir).unwrap();
    for round in 0..3u32 {
        let w = store.write().unwrap();
        w.with_table("small", |t| {
            for i in 0..1500u32 {
                let k = (i * 7919 % 1500).to_be_bytes();
                let v: Vec<u8> = (0..40 + (i % 60)).map(|j| (i + j + round) as u8).collect();
                t.put(&k, &v)?;
            }
            if round == 2 {
                t.remove_range(&100u32.to_be_bytes(), &300u32.to_be_bytes())?;
            }
            Ok(())
        })
        .unwrap();
        w.with_table("big", |t| {
            for i in 0..4u32 {
                let v: Vec<u8> = (0..(9000 * (i + 1)))
                    .map(|j| (j * 31 + i + round) as u8)
                    .collect();
                t.put(&[i as u8, round as u8], &v)?;
            }
            Ok(())
        })
        .unwrap();
        w.with_table("meta", |t| t.put(b"round", &round.to_le_bytes()))
            .unwrap();
        w.commit().unwrap();
    }
}

/// Every entry of every table, or the first error.
fn contents(dir: &Path) -> Result<Contents, tabiya_store::StoreError> {
    let store = Store::open(dir)?;
    let r = store.read()?;
    let mut out = Contents::new();
    for name in TABLES {
        let t = r.table(name)?;
        let mut rows = Vec::new();
        t.scan(&[], None, |k, v| {
            rows.push((k.to_vec(), v.to_vec()));
            true
        })?;
        // Point reads too (a lookup goes down another path than a scan).
        for (k, v) in &rows {
            assert_eq!(t.get(k)?.as_ref(), Some(v));
        }
        out.insert(name.to_string(), rows);
    }
    Ok(out)
}

fn copy(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for f in [STORE_FILE, SUMS_FILE] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

fn flip(file: &Path, at: u64, bit: u8) {
    let mut b = std::fs::read(file).unwrap();
    b[at as usize] ^= 1 << bit;
    std::fs::write(file, b).unwrap();
}

#[test]
fn a_store_closed_cleanly_is_read_verified() {
    let tmp = tempfile::tempdir().unwrap();
    make(tmp.path());
    let store = Store::open(tmp.path()).unwrap();
    assert!(store.reads_verified());
    let sums = std::fs::metadata(tmp.path().join(SUMS_FILE)).unwrap().len();
    let file = std::fs::metadata(tmp.path().join(STORE_FILE))
        .unwrap()
        .len();
    // A header unit, then a chunk of 1,023 sums per 1,023 units.
    assert_eq!(sums, UNIT * (1 + file.div_ceil(UNIT).div_ceil(1023)));
}

/// The heart of it: one bit flipped in every 4 KiB unit of both files, one unit at a time
/// (three places in each: the first byte, one inside, the last), and every table read whole
/// and by key: the same contents, or an error that says the store is damaged and names the
/// file.
#[test]
fn a_bit_flipped_in_any_unit_is_an_error_naming_the_file_or_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    make(&good);
    let before = contents(&good).unwrap();
    let bad = tmp.path().join("bad");
    let (mut errors, mut same) = (0, 0);
    for name in [STORE_FILE, SUMS_FILE] {
        let len = std::fs::metadata(good.join(name)).unwrap().len();
        for unit in 0..len.div_ceil(UNIT) {
            let end = ((unit + 1) * UNIT).min(len);
            for (i, at) in [
                unit * UNIT,
                unit * UNIT + 1 + unit * 37 % (UNIT - 2),
                end - 1,
            ]
            .into_iter()
            .enumerate()
            {
                if at >= end {
                    continue;
                }
                copy(&good, &bad);
                flip(&bad.join(name), at, ((unit as usize + i) % 8) as u8);
                match contents(&bad) {
                    Ok(c) => {
                        assert_eq!(c, before, "{name}: byte {at} flipped: a different answer");
                        same += 1;
                    }
                    Err(e) => {
                        let said = e.to_string();
                        assert!(
                            e.is_damaged() || said.contains("damaged"),
                            "{name}: byte {at}: not said to be damaged: {said}"
                        );
                        assert!(
                            said.contains(&bad.display().to_string()),
                            "{name}: byte {at}: the file is not named: {said}"
                        );
                        errors += 1;
                    }
                }
            }
        }
    }
    // Every unit of a small store is read by the scan above, so almost every flip is found.
    eprintln!("{errors} flips found, {same} changed nothing read");
    assert!(errors > 0);
}

#[test]
fn a_store_without_sums_is_verified_and_gets_them() {
    let tmp = tempfile::tempdir().unwrap();
    make(tmp.path());
    let before = contents(tmp.path()).unwrap();
    std::fs::remove_file(tmp.path().join(SUMS_FILE)).unwrap();
    {
        let store = Store::open(tmp.path()).unwrap();
        assert!(store.reads_verified());
    }
    assert_eq!(contents(tmp.path()).unwrap(), before);
    assert!(std::fs::metadata(tmp.path().join(SUMS_FILE)).unwrap().len() > UNIT);
    // And a damaged page of such a store is found by redb's check on that first open.
    let bad = tmp.path().join("bad");
    let _ = std::fs::remove_dir_all(&bad);
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::copy(tmp.path().join(STORE_FILE), bad.join(STORE_FILE)).unwrap();
    let len = std::fs::metadata(bad.join(STORE_FILE)).unwrap().len();
    let mut found = 0;
    for unit in 1..len / UNIT {
        std::fs::copy(tmp.path().join(STORE_FILE), bad.join(STORE_FILE)).unwrap();
        let _ = std::fs::remove_file(bad.join(SUMS_FILE));
        flip(&bad.join(STORE_FILE), unit * UNIT + 100, 3);
        match contents(&bad) {
            Ok(c) => assert_eq!(c, before, "unit {unit}"),
            Err(e) => {
                assert!(e.to_string().contains(&bad.display().to_string()), "{e}");
                found += 1;
            }
        }
    }
    assert!(found > 0);
}

#[test]
fn a_store_not_closed_cleanly_is_verified_and_its_sums_written_again() {
    let tmp = tempfile::tempdir().unwrap();
    make(tmp.path());
    let before = contents(tmp.path()).unwrap();
    // The state a crash leaves: the header says "open" (bytes 20..24), and its CRC agrees.
    let sums = tmp.path().join(SUMS_FILE);
    let mut b = std::fs::read(&sums).unwrap();
    b[20..24].copy_from_slice(&0u32.to_le_bytes());
    let c = crc32fast::hash(&b[..32]);
    b[32..36].copy_from_slice(&c.to_le_bytes());
    // And sums that no longer describe the file (written for other data).
    for x in &mut b[UNIT as usize..UNIT as usize + 64] {
        *x ^= 0x55;
    }
    std::fs::write(&sums, &b).unwrap();
    assert_eq!(contents(tmp.path()).unwrap(), before);
    let store = Store::open(tmp.path()).unwrap();
    assert!(store.reads_verified());
}

#[test]
fn a_store_changed_after_it_was_closed_is_refused_naming_both_files() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    make(&a);
    // Another commit made elsewhere, its file copied over `a`'s alone (as a restore of the
    // store file from a copy, or a write by a program that keeps no sums, would leave it).
    let b = tmp.path().join("b");
    copy(&a, &b);
    {
        let store = Store::open(&b).unwrap();
        let w = store.write().unwrap();
        w.with_table("meta", |t| t.put(b"other", b"commit"))
            .unwrap();
        w.commit().unwrap();
    }
    std::fs::copy(b.join(STORE_FILE), a.join(STORE_FILE)).unwrap();
    let e = Store::open(&a).err().expect("an error");
    let said = e.to_string();
    assert!(e.is_damaged(), "{said}");
    assert!(
        said.contains(&a.join(STORE_FILE).display().to_string()),
        "{said}"
    );
    assert!(said.contains(SUMS_FILE), "{said}");
    // Its sums removed, it is verified whole and opened.
    std::fs::remove_file(a.join(SUMS_FILE)).unwrap();
    assert_eq!(contents(&a).unwrap(), contents(&b).unwrap());
}

#[test]
fn a_second_process_is_refused_before_the_store_is_touched() {
    let tmp = tempfile::tempdir().unwrap();
    make(tmp.path());
    let _held = Store::open(tmp.path()).unwrap();
    // The sums' lock is per open file description: a second open in this process stands
    // for another process.
    let e = Store::open(tmp.path()).err().expect("refused");
    assert!(e.is_in_use(), "{e}");
}

#[test]
fn a_store_closed_and_opened_again_while_children_start_is_not_refused() {
    // A child process holds a copy of every descriptor, and so the store's locks, from its
    // fork to its exec: a store opened in that instant finds its lock held. This is what a
    // test harness does (one test runs the CLI while another opens a store) and what the
    // server does (it starts an engine while a request opens a store).
    let tmp = tempfile::tempdir().unwrap();
    make(tmp.path());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spawner = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::process::Command::new("true").status().unwrap();
                n += 1;
            }
            n
        })
    };
    let held = Store::open(tmp.path()).unwrap();
    drop(held);
    for round in 0..300 {
        let store =
            Store::open(tmp.path()).unwrap_or_else(|e| panic!("opening again, round {round}: {e}"));
        drop(store);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(
        spawner.join().unwrap() > 0,
        "no child was started meanwhile"
    );
}
