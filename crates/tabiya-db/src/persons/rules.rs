//! The user's corrections of how names group, kept in order in the `name_rules` table and
//! applied after normalisation and the spelling file on every rebuild.

use crate::codec::{DecodeError, Reader, put_str};
use crate::game::Dict;

/// The table of rules: sequence number → rule.
pub const NAME_RULES: &str = "name_rules";

/// One correction. Names are spellings as written in games (the rule holds for whatever
/// entry they belong to at the time it is applied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameRule {
    /// The spelling `name` belongs to the entry of the spelling `to`.
    Alias {
        dict: Dict,
        name: String,
        to: String,
    },
    /// The spelling `name` is an entry of its own.
    Separate { dict: Dict, name: String },
    /// The entries of `a` and `b` are one (named as `a`'s).
    Merge { dict: Dict, a: String, b: String },
    /// The spellings grouped with `b` before any rule leave `a`'s entry.
    Split { dict: Dict, a: String, b: String },
    /// The entry of `name` is shown as `display`.
    Rename {
        dict: Dict,
        name: String,
        display: String,
    },
}

impl NameRule {
    pub fn dict(&self) -> Dict {
        match self {
            NameRule::Alias { dict, .. }
            | NameRule::Separate { dict, .. }
            | NameRule::Merge { dict, .. }
            | NameRule::Split { dict, .. }
            | NameRule::Rename { dict, .. } => *dict,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let (kind, strs): (u8, Vec<&str>) = match self {
            NameRule::Alias { name, to, .. } => (0, vec![name, to]),
            NameRule::Separate { name, .. } => (1, vec![name]),
            NameRule::Merge { a, b, .. } => (2, vec![a, b]),
            NameRule::Split { a, b, .. } => (3, vec![a, b]),
            NameRule::Rename { name, display, .. } => (4, vec![name, display]),
        };
        out.push(kind);
        out.push(self.dict() as u8);
        for s in strs {
            put_str(&mut out, s);
        }
        out
    }

    pub fn decode(data: &[u8]) -> Result<NameRule, DecodeError> {
        let mut r = Reader::new(data);
        let kind = r.u8("rule kind")?;
        let dict = match r.u8("rule dictionary")? {
            0 => Dict::Player,
            1 => Dict::Event,
            2 => Dict::Site,
            5 => Dict::Annotator,
            _ => return Err(r.bad("rule dictionary")),
        };
        let mut s = || -> Result<String, DecodeError> { Ok(r.str("rule name")?.to_string()) };
        Ok(match kind {
            0 => NameRule::Alias {
                dict,
                name: s()?,
                to: s()?,
            },
            1 => NameRule::Separate { dict, name: s()? },
            2 => NameRule::Merge {
                dict,
                a: s()?,
                b: s()?,
            },
            3 => NameRule::Split {
                dict,
                a: s()?,
                b: s()?,
            },
            4 => NameRule::Rename {
                dict,
                name: s()?,
                display: s()?,
            },
            _ => return Err(Reader::new(data).bad("rule kind")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_round_trip() {
        for r in [
            NameRule::Alias {
                dict: Dict::Player,
                name: "Bobby Fischer".into(),
                to: "Fischer, Robert J".into(),
            },
            NameRule::Separate {
                dict: Dict::Event,
                name: "x".into(),
            },
            NameRule::Merge {
                dict: Dict::Site,
                a: "a".into(),
                b: "b".into(),
            },
            NameRule::Split {
                dict: Dict::Player,
                a: "a".into(),
                b: "b".into(),
            },
            NameRule::Rename {
                dict: Dict::Player,
                name: "a".into(),
                display: "Á".into(),
            },
        ] {
            assert_eq!(NameRule::decode(&r.encode()).unwrap(), r);
        }
        assert!(NameRule::decode(&[9, 0]).is_err());
    }
}
