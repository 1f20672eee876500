//! Shared by the spelling-file tests.
#![allow(dead_code)]

use tabiya_names::ssp::{Correction, PersonId, Spelling};

pub fn load(text: &str) -> Spelling {
    Spelling::read(text.as_bytes()).expect("in-memory read")
}

pub const PLAYERS: &str = "\
# A comment line
@PLAYER \"., -_*\"
Fischer, Robert J #gm  USA [2785] 1943.03.09--2008.01.17
   %Bio World champion 1972-1975
   %Bio VIAF 46772260
   = Fischer, Robert James
   = Fischer, R J
Fischer, Rudolf #- GER [2100] 1950
Polgar, Judit #GM HUN [2675] 1976.07.23 wi
   = Polgar, Judith
Sakai, Kiyotaka #-  USA [2231] 1970 i
   = Akai, Kiyotaka
Akai, Kiyotaka #-  JPN [1552] 1957
Smith, John #im+cim URS/RUS [2480*] 1900.??.??--1950
   %Elo 2000:2300,2310 2001:2320,?,2340,2350
Jones, Ann #w ENG [....] ????
   %Elo 2009:2401,2402,2403,2404,2405 2012:2501,2502,2503,2504,2505,2506,2507,2508,2509
   %Elo 2013:2601,2602,2603
";

pub fn corrected<'a>(canonical: &'a str, id: u32) -> Correction<'a> {
    Correction::Corrected {
        canonical,
        person: Some(PersonId(id)),
    }
}
