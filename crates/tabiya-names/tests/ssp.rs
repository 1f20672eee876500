//! Scid spelling files: small handmade files, one rule each. Expected values follow Scid's
//! sources (`spellchk.h`, `spellchk.cpp`, `sc_name_spellcheck` in `tkscid.cpp`).

mod common;

use common::{PLAYERS, corrected, load};
use tabiya_names::ssp::{Correction, PartialDate, PersonId, Section, Spelling};

#[test]
fn aliases_and_normalisation() {
    let s = load(PLAYERS);
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    assert_eq!(s.len(Section::Player), 7);
    assert_eq!(s.spellings(Section::Player), 11);
    assert_eq!(s.ignored_chars(Section::Player), "., -_*");
    let p = Section::Player;
    assert_eq!(
        s.correct(p, "Fischer, Robert James"),
        corrected("Fischer, Robert J", 0)
    );
    assert_eq!(
        s.correct(p, "Fischer,R.J."),
        corrected("Fischer, Robert J", 0)
    );
    assert_eq!(
        s.correct(p, "Polgar, Judith"),
        corrected("Polgar, Judit", 2)
    );
    // Already correct.
    assert_eq!(s.correct(p, "Polgar, Judit"), Correction::Unchanged);
    // Scid compares bytes: case matters.
    assert_eq!(s.correct(p, "POLGAR, JUDIT"), Correction::Unchanged);
    // A trailing country code in parentheses is removed first.
    assert_eq!(
        s.correct(p, "Polgar, Judit (HUN)"),
        corrected("Polgar, Judit", 2)
    );
}

#[test]
fn given_name_first_retry() {
    let s = load(PLAYERS);
    let p = Section::Player;
    assert_eq!(s.correct(p, "Judit Polgar"), corrected("Polgar, Judit", 2));
    assert_eq!(
        s.correct(p, "Robert James Fischer"),
        corrected("Fischer, Robert J", 0)
    );
    assert_eq!(
        s.correct(p, "R. J. Fischer"),
        corrected("Fischer, Robert J", 0)
    );
}

#[test]
fn prefix_matching_and_ambiguity() {
    let s = load(PLAYERS);
    let p = Section::Player;
    // "PolgarJ" begins "PolgarJudit" and "PolgarJudith": one player.
    assert_eq!(s.correct(p, "Polgar,J"), corrected("Polgar, Judit", 2));
    // "FischerR" begins the spellings of two players.
    assert_eq!(
        s.correct(p, "Fischer, R"),
        Correction::Ambiguous(vec!["Fischer, Robert J", "Fischer, Rudolf"])
    );
    // The same spelling listed under two correct names.
    assert_eq!(
        s.correct(p, "Akai, Kiyotaka"),
        Correction::Ambiguous(vec!["Sakai, Kiyotaka", "Akai, Kiyotaka"])
    );
    assert_eq!(
        s.find(p, "Akai Kiyotaka"),
        ["Sakai, Kiyotaka", "Akai, Kiyotaka"]
    );
    // A surname alone is not corrected (Scid's default), even when it would match.
    assert_eq!(s.correct(p, "Polgar"), Correction::Unchanged);
    assert_eq!(s.find(p, "Polgar"), ["Polgar, Judit"]);
    assert_eq!(s.correct(p, "Nobody, Here"), Correction::Unchanged);
    assert_eq!(s.correct(p, ""), Correction::Unchanged);
    assert_eq!(s.correct(p, "?"), Correction::Unchanged);
}

#[test]
fn general_rules() {
    // Scid's own example, spellchk.h (NameNormalizer):
    // "II champ 3rd II 3rd (Italy) (Italy)" --> "2. champ 3. II 3. (Italy) ITA"
    let s = load(
        "@EVENT \",. -_\"\n%Prefix \"II \" \"2. \"\n%Infix \"3rd \" \"3. \"\n%Suffix \"(Italy)\" \"ITA\"\n\
         %Suffix \" ch\" \" Ch\"\n%Infix \"1st \" \"1. \"\n1. Open\n",
    );
    assert!(s.warnings().is_empty(), "{:?}", s.warnings());
    let e = Section::Event;
    assert_eq!(
        s.correct(e, "II champ 3rd II 3rd (Italy) (Italy)"),
        Correction::Rewritten("2. champ 3. II 3. (Italy) ITA".into())
    );
    assert_eq!(
        s.correct(e, "URS ch"),
        Correction::Rewritten("URS Ch".into())
    );
    // Rewritten, then found.
    assert_eq!(
        s.correct(e, "1st Open"),
        Correction::Corrected {
            canonical: "1. Open",
            person: None
        }
    );
    // Only the first matching prefix (and suffix) applies.
    let s = load("@EVENT \"\"\n%Prefix \"A\" \"B\"\n%Prefix \"B\" \"C\"\n");
    assert_eq!(s.correct(e, "Ax"), Correction::Rewritten("Bx".into()));
}

#[test]
fn sites_and_rounds() {
    let s = load(
        "@SITE \"., -_()\"\n%Suffix \"(Argentina)\" \"ARG\"\nBuenos Aires ARG\n\n@ROUND \"\"\n1\n   = 01\n   = (01)\n10\n",
    );
    assert_eq!(
        s.correct(Section::Site, "Buenos Aires (Argentina)"),
        Correction::Corrected {
            canonical: "Buenos Aires ARG",
            person: None
        }
    );
    assert_eq!(
        s.correct(Section::Site, "Buenos-Aires ARG"),
        Correction::Corrected {
            canonical: "Buenos Aires ARG",
            person: None
        }
    );
    assert_eq!(
        s.correct(Section::Round, "(01)"),
        Correction::Corrected {
            canonical: "1",
            person: None
        }
    );
    assert_eq!(s.correct(Section::Round, "1"), Correction::Unchanged);
    // "1" is exact: the prefix "1" of "10" does not count.
    assert_eq!(s.find(Section::Round, "1"), ["1"]);
    // Not a surname-only skip outside @PLAYER.
    assert_eq!(s.find(Section::Round, "( 01 )"), Vec::<&str>::new());
}

#[test]
fn bad_lines_are_reported_with_their_number() {
    let text = "\
Orphan, Name
@PLAYER \"., -_*\"
   = Alias, Before
Good, Name #- ENG [2000] 1960
%Prefix \"only two\"
%Frobnicate x
> old bio
@EVENT \"\"
%Bio Not a player
@NOWHERE \"x\"
Skipped, Name
@player \".\"
Late, Name
   = late,name
";
    let s = load(text);
    let got: Vec<(usize, &str)> = s
        .warnings()
        .iter()
        .map(|w| (w.line, w.message.as_str()))
        .collect();
    let lines: Vec<usize> = got.iter().map(|w| w.0).collect();
    assert_eq!(lines, [1, 3, 5, 6, 7, 9, 10], "{got:#?}");
    assert!(got[0].1.contains("outside any section"));
    assert!(got[1].1.contains("before any correct name"));
    assert!(got[2].1.contains("malformed rule"));
    assert!(got[3].1.contains("unknown line"));
    assert!(got[5].1.contains("%Bio"));
    assert!(got[6].1.contains("unknown section"));
    // Reading went on: the names after the bad lines are there; the lowercase section name
    // counts, with its own ignored characters.
    assert_eq!(
        s.correct_names(Section::Player).collect::<Vec<_>>(),
        ["Good, Name", "Late, Name"]
    );
    assert_eq!(s.ignored_chars(Section::Player), ".");
    assert_eq!(s.find(Section::Player, "late,name"), ["Late, Name"]);
}

#[test]
fn latin1_lines_and_crlf() {
    let mut bytes = b"@PLAYER \"., -_*\"\r\nM".to_vec();
    bytes.push(0xfc); // ü in Latin-1
    bytes.extend_from_slice(b"ller, Hans #- GER [2200] 1950\r\n   = Mueller, Hans\r\n");
    bytes.splice(0..0, "\u{feff}".bytes()); // a byte-order mark is skipped
    let s = Spelling::read(&bytes[..]).unwrap();
    assert_eq!(s.warnings().len(), 1);
    assert_eq!(s.warnings()[0].line, 2);
    let p = Section::Player;
    assert_eq!(s.correct(p, "Mueller, Hans"), corrected("Müller, Hans", 0));
    assert_eq!(
        s.person(PersonId(0)).birth,
        Some(PartialDate {
            year: 1950,
            month: None,
            day: None
        })
    );
}
