//! Scid's spelling format (`.ssp`): any text read as a spelling file, then a few names
//! corrected against it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tabiya_names::ssp::{Section, Spelling};

fuzz_target!(|data: &[u8]| {
    let Ok(sp) = Spelling::read(data) else {
        return;
    };
    let _ = sp.warnings().len();
    for section in [
        Section::Player,
        Section::Event,
        Section::Site,
        Section::Round,
    ] {
        let names: Vec<String> = sp
            .correct_names(section)
            .take(8)
            .map(String::from)
            .collect();
        for name in names
            .iter()
            .map(String::as_str)
            .chain(["Kasparov, G", "Polgar,Ju", "a"])
        {
            let _ = sp.normalise(section, name);
            let _ = sp.find(section, name);
            let _ = sp.correct_dated(section, name, Some((1990, Some(5), None)));
            if let Some(id) = sp.person_id(name) {
                let _ = sp.person(id);
                let _ = sp.elo_at(id, 1990, Some(5));
            }
        }
    }
});
