//! The gameset language (`--where`, `where=`, `gameset create`): any text parsed; an error
//! explained against the text (its column pointed at).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = tabiya_fuzz::text(data) {
        tabiya_db::fuzzing::criteria(text);
        let _ = tabiya_db::files_of(text);
    }
});
