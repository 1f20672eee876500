//! HTTP query strings: parsed, made canonical (and parsed again to the same), read as
//! numbers and lists, the explorer's filters read and checked; a `where` read as criteria.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_server::fuzzing::Params;

fuzz_target!(|data: &[u8]| {
    let Some(query) = tabiya_fuzz::text(data) else {
        return;
    };
    let p = Params::parse(Some(query));
    let canonical = p.canonical();
    assert_eq!(
        Params::parse(Some(&canonical)).canonical(),
        canonical,
        "canonical form moved"
    );
    let _ = p.number("moves", 12, 500);
    let _ = p.capped("topGames", 4, 15);
    let _ = p.list("speeds");
    if let Ok(f) = p.filter() {
        let _ = f.checked();
        if let Some(w) = &f.criteria {
            let _ = tabiya_db::files_of(w);
        }
    }
});
