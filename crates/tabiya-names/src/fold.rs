//! Folding of names for matching: case, accents, punctuation and spacing ignored.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Folds a name for matching: lowercase, accents removed, punctuation dropped, whitespace
/// collapsed to single spaces, no leading or trailing space.
///
/// * Accents: the text is decomposed (Unicode NFKD) and the combining marks dropped, so every
///   precomposed Latin letter loses its accent (`á`→`a`, `ö`→`o`, `ň`→`n`, `ş`→`s`); the letters
///   that do not decompose are mapped by a small table (`ß`→`ss`, `ø`→`o`, `ł`→`l`, `đ`/`ð`→`d`,
///   `æ`→`ae`, `œ`→`oe`, `þ`→`th`, `ı`→`i`, `ħ`→`h`).
/// * Apostrophes are dropped inside a word (`O'Kelly` → `okelly`); every other punctuation
///   character separates words like a space (`Fischer,R.J.` → `fischer r j`), so a name
///   written with or without spaces after its dots and commas folds the same.
///
/// ```
/// assert_eq!(tabiya_names::fold("  Polgár,  Judit "), "polgar judit");
/// assert_eq!(tabiya_names::fold("Hübner, R."), "hubner r");
/// assert_eq!(tabiya_names::fold("Straße"), "strasse");
/// ```
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    fold_into(s, &mut out);
    out
}

/// Appends the folded `s` to `out`, separated from what `out` holds by one space.
pub(crate) fn fold_into(s: &str, out: &mut String) {
    let mut pending_space = !out.is_empty();
    let push = |out: &mut String, c: char, pending_space: &mut bool| {
        if c.is_alphanumeric() {
            if *pending_space && !out.is_empty() {
                out.push(' ');
            }
            *pending_space = false;
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(c.to_lowercase());
            }
        } else if !is_apostrophe(c) {
            *pending_space = true;
        }
    };
    if s.is_ascii() {
        for c in s.chars() {
            push(out, c, &mut pending_space);
        }
    } else {
        for c in s.nfkd() {
            if is_combining_mark(c) {
                continue;
            }
            match special(c) {
                Some(rep) => rep.chars().for_each(|r| push(out, r, &mut pending_space)),
                None => push(out, c, &mut pending_space),
            }
        }
    }
}

/// Folds one word: [`fold`] with the spaces removed (`van Wely` → `vanwely`).
pub(crate) fn fold_compact(s: &str) -> String {
    let mut f = fold(s);
    f.retain(|c| c != ' ');
    f
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '’' | '‘' | '`' | '´' | 'ʼ')
}

/// Letters that NFKD leaves whole.
fn special(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' | 'ẞ' => "ss",
        'ø' | 'Ø' => "o",
        'ł' | 'Ł' => "l",
        'đ' | 'Đ' | 'ð' | 'Ð' => "d",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'þ' | 'Þ' => "th",
        'ı' => "i",
        'ħ' | 'Ħ' => "h",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_accents_punctuation_spacing() {
        assert_eq!(fold("Fischer, Robert J."), "fischer robert j");
        assert_eq!(fold("Fischer,R"), "fischer r");
        assert_eq!(fold("  van   Wely ,Loek "), "van wely loek");
        assert_eq!(fold("Ljubojević"), "ljubojevic");
        assert_eq!(fold("Ørnstein"), "ornstein");
        assert_eq!(fold("Gaprindašvili"), "gaprindasvili");
        assert_eq!(fold("Świercz, Dariusz"), "swiercz dariusz");
        assert_eq!(fold("Łukasz"), "lukasz");
        assert_eq!(fold("Schüßler"), "schussler");
        assert_eq!(fold("Hjartarson, Jóhann"), "hjartarson johann");
        assert_eq!(fold("O'Kelly de Galway"), "okelly de galway");
        assert_eq!(fold("?"), "");
        assert_eq!(fold(""), "");
        assert_eq!(fold("Stockfish 16"), "stockfish 16");
    }
}
