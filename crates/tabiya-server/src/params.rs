//! Query strings read leniently and checked strictly: every parameter by name, numbers in
//! range, lists comma-separated; anything out of bounds is the caller's error, named. Each
//! endpoint's struct is read from these (`query.rs`, `FromParams`).

use std::collections::BTreeMap;

use tabiya_service::Error;
use tabiya_service::filter::{Colour, Filter};

/// The parameters of a request.
pub struct Params(BTreeMap<String, String>);

impl Params {
    pub fn parse(query: Option<&str>) -> Params {
        let mut map = BTreeMap::new();
        // `+` is a space, `%XX` a byte; bytes that are not UTF-8 are replaced.
        for (k, v) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            map.entry(k.into_owned()).or_insert_with(|| v.into_owned());
        }
        Params(map)
    }

    /// The parameters in a canonical order, encoded again (so that no two questions share
    /// a cache key), for cache keys.
    pub fn canonical(&self) -> String {
        form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&self.0)
            .finish()
    }

    /// A parameter's value (an empty value counts as absent).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A whole number between 0 and `max`, `default` when absent.
    pub fn number(&self, name: &str, default: usize, max: usize) -> Result<usize, Error> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => match v.parse::<usize>() {
                Ok(n) if n <= max => Ok(n),
                Ok(_) => Err(Error::bad_request(format!("{name} {v}: at most {max}"))),
                Err(_) => Err(Error::bad_request(format!(
                    "{name} {v:?}: not a whole number"
                ))),
            },
        }
    }

    /// A whole number between 0 and `max` when given, `None` when absent.
    pub fn optional_number(&self, name: &str, max: usize) -> Result<Option<usize>, Error> {
        self.get(name)
            .map(|_| self.number(name, 0, max))
            .transpose()
    }

    /// A number between 0 and `max`, capped there (the Lichess endpoints cap silently).
    pub fn capped(&self, name: &str, default: usize, max: usize) -> Result<usize, Error> {
        match self.get(name) {
            None => Ok(default.min(max)),
            Some(v) => v
                .parse::<usize>()
                .map(|n| n.min(max))
                .map_err(|_| Error::bad_request(format!("{name} {v:?}: not a whole number"))),
        }
    }

    /// A comma-separated list.
    pub fn list(&self, name: &str) -> Vec<String> {
        self.get(name)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The explorer's filters: `since`, `until`, `ratingMin`, `ratingMax`, `ratings`
    /// (Lichess's groups), `speeds`, `player`, `color`; Tabiya's `gameset` and `where`.
    pub fn filter(&self) -> Result<Filter, Error> {
        let rating = |name: &str| -> Result<Option<u16>, Error> {
            self.get(name)
                .map(|v| {
                    v.parse::<u16>().map_err(|_| {
                        Error::bad_request(format!("{name} {v:?}: a rating from 0 to 65535"))
                    })
                })
                .transpose()
        };
        let mut groups = Vec::new();
        for g in self.list("ratings") {
            groups.push(g.parse::<u16>().map_err(|_| {
                Error::bad_request(format!("ratings {g:?}: a rating group like 1600"))
            })?);
        }
        Ok(Filter {
            since: self.get("since").map(String::from),
            until: self.get("until").map(String::from),
            rating_min: rating("ratingMin")?,
            rating_max: rating("ratingMax")?,
            rating_groups: groups,
            speeds: self.list("speeds"),
            player: self.get("player").map(String::from),
            colour: match self.get("color") {
                None | Some("any") | Some("both") => None,
                Some(c) => Some(Colour::from_name(c)?),
            },
            gameset: self.get("gameset").map(String::from),
            criteria: self.get("where").map(String::from),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding() {
        let p = Params::parse(Some(
            "fen=rnbqkbnr%2Fpppppppp&play=e2e4,e7e5&play=x&empty=&name=a+b%20c&k=%E2%99%94&bad=100%",
        ));
        assert_eq!(p.get("fen"), Some("rnbqkbnr/pppppppp"));
        assert_eq!(
            p.get("play"),
            Some("e2e4,e7e5"),
            "the first of a repeated parameter"
        );
        assert_eq!(p.get("empty"), None);
        assert_eq!(p.get("name"), Some("a b c"));
        assert_eq!(p.get("k"), Some("♔"));
        assert_eq!(p.get("bad"), Some("100%"));
        assert!(p.number("limit", 20, 1000).is_ok());
        let p = Params::parse(Some("limit=1000000000"));
        assert!(p.number("limit", 20, 1000).is_err());
    }

    /// Two different questions never share a cache key, however their values are spelt.
    #[test]
    fn canonical_keys_tell_questions_apart() {
        let a = Params::parse(Some("player=x%26since%3D2000"));
        let b = Params::parse(Some("player=x&since=2000"));
        assert_eq!(a.get("player"), Some("x&since=2000"));
        assert_ne!(a.canonical(), b.canonical());
        let c = Params::parse(Some("since=2000&player=x"));
        assert_eq!(b.canonical(), c.canonical(), "the order does not matter");
    }
}
