//! Requests typed: each endpoint's query string is one struct ([`FromParams`], next to its
//! handler) read by one extractor, [`Query`], and each JSON body one struct ([`JsonBody`])
//! read by [`Body`]. Both refuse what they cannot read with the error that names it (a 400,
//! or the 404 of a game id that cannot be one), as JSON for Tabiya's API or as text for the
//! Lichess endpoints (`Query<T, LichessError>`). The reading stays lenient where it was
//! (`params.rs`): the first of a repeated parameter, an empty one absent, unknown ones
//! ignored (Lichess's clients send their own).

use std::marker::PhantomData;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use tabiya_service::{ChessPosition, Error};

use crate::error::ApiError;
use crate::params::Params;

/// A query string's struct, read from its parameters.
pub trait FromParams: Sized {
    fn from_params(p: &Params) -> Result<Self, Error>;
}

/// An endpoint's query, read (`value`) or refused with the error `E` says it as; with the
/// query in canonical order (`canonical`), for cache keys.
pub struct Query<T, E = ApiError> {
    pub value: T,
    pub canonical: String,
    error: PhantomData<fn() -> E>,
}

impl<T: FromParams, E> Query<T, E> {
    pub fn read(query: Option<&str>) -> Result<Self, Error> {
        let p = Params::parse(query);
        Ok(Query {
            value: T::from_params(&p)?,
            canonical: p.canonical(),
            error: PhantomData,
        })
    }
}

impl<S, T, E> FromRequestParts<S> for Query<T, E>
where
    S: Send + Sync,
    T: FromParams,
    E: From<Error> + IntoResponse,
{
    type Rejection = E;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, E> {
        Ok(Query::read(parts.uri.query())?)
    }
}

/// A JSON body's struct, and how it should look, said when it does not (`"an edit is JSON
/// like …"`, followed by what was wrong).
pub trait JsonBody: DeserializeOwned {
    const LIKE: &'static str;

    /// What the JSON cannot say of itself (a deletion that deletes nothing).
    fn check(&self) -> Result<(), Error> {
        Ok(())
    }
}

/// A request's JSON body, read (a body too big keeps axum's answer).
pub struct Body<T>(pub T);

impl<T: JsonBody> Body<T> {
    pub fn read(bytes: &[u8]) -> Result<T, Error> {
        let value: T = serde_json::from_slice(bytes)
            .map_err(|e| Error::bad_request(format!("{}: {e}", T::LIKE)))?;
        value.check()?;
        Ok(value)
    }
}

impl<S, T> FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: JsonBody,
{
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Response> {
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(IntoResponse::into_response)?;
        Body::read(&bytes)
            .map(Body)
            .map_err(|e| ApiError(e).into_response())
    }
}

/// The query of an endpoint that reads only which database (`db=NAME`).
pub struct DbQuery {
    pub db: Option<String>,
}

impl FromParams for DbQuery {
    fn from_params(p: &Params) -> Result<DbQuery, Error> {
        Ok(DbQuery {
            db: p.get("db").map(String::from),
        })
    }
}

/// A chess position as asked: `fen` (default the start) and `play` (moves, comma-separated),
/// resolved by the handler, which knows whether its database is chess.
#[derive(Clone)]
pub struct ChessAt {
    pub fen: Option<String>,
    pub play: Option<String>,
}

impl ChessAt {
    pub fn resolve(&self) -> Result<ChessPosition, Error> {
        ChessPosition::resolve(self.fen.as_deref(), self.play.as_deref())
    }
}

impl FromParams for ChessAt {
    fn from_params(p: &Params) -> Result<ChessAt, Error> {
        Ok(ChessAt {
            fen: p.get("fen").map(String::from),
            play: p.get("play").map(String::from),
        })
    }
}

#[cfg(test)]
mod tests {
    use axum::extract::FromRequestParts;
    use serde::Deserialize;
    use tabiya_service::filter::Filter;

    use super::*;

    /// A query like the endpoints': a number in range, an optional one, a list, the filters.
    struct Sample {
        db: Option<String>,
        limit: usize,
        recent: Option<usize>,
        speeds: Vec<String>,
        filter: Filter,
    }

    impl FromParams for Sample {
        fn from_params(p: &Params) -> Result<Sample, Error> {
            Ok(Sample {
                db: p.get("db").map(String::from),
                limit: p.number("limit", 20, 1000)?,
                recent: p.optional_number("recent", 100)?,
                speeds: p.list("speeds"),
                filter: p.filter()?,
            })
        }
    }

    fn sample(q: &str) -> Result<Query<Sample>, Error> {
        Query::read(Some(q))
    }

    fn refused(q: &str) -> String {
        match sample(q) {
            Ok(_) => panic!("{q}: read"),
            Err(e) => {
                assert_eq!(e.kind(), tabiya_service::ErrorKind::BadRequest, "{q}");
                e.to_string()
            }
        }
    }

    #[test]
    fn named_refusals() {
        assert!(refused("limit=1000000000").contains("limit 1000000000: at most 1000"));
        assert!(refused("limit=x").contains("limit \"x\": not a whole number"));
        assert!(refused("recent=-1").contains("recent \"-1\": not a whole number"));
        assert!(refused("ratings=1600,x").contains("ratings \"x\": a rating group like 1600"));
        assert!(refused("ratingMin=high").contains("ratingMin \"high\": a rating from 0 to 65535"));
    }

    #[test]
    fn lenient_reading() {
        let q = sample("limit=5&limit=2000&db=a&db=b&recent=&speeds=blitz,,rapid&shouldSkip=1")
            .unwrap();
        let s = q.value;
        assert_eq!(s.limit, 5, "the first of a repeated parameter");
        assert_eq!(s.db.as_deref(), Some("a"));
        assert_eq!(s.recent, None, "an empty parameter is absent");
        assert_eq!(s.speeds, ["blitz", "rapid"]);
        assert_eq!(s.filter.speeds, ["blitz", "rapid"]);
        // Unknown parameters are ignored, yet tell cache keys apart.
        assert!(q.canonical.contains("shouldSkip=1"));
        let none = sample("").unwrap().value;
        assert_eq!((none.limit, none.recent, none.db), (20, None, None));
    }

    #[tokio::test]
    async fn extractor_answers_json_or_text() {
        let (mut parts, ()) = axum::http::Request::builder()
            .uri("/x?limit=1001")
            .body(())
            .unwrap()
            .into_parts();
        let Err(e) = Query::<Sample>::from_request_parts(&mut parts, &()).await else {
            panic!("read");
        };
        let r = e.into_response();
        assert_eq!(r.status(), 400);
        let body = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["error"], "limit 1001: at most 1000");
        let Err(e) =
            Query::<Sample, crate::error::LichessError>::from_request_parts(&mut parts, &()).await
        else {
            panic!("read");
        };
        let r = e.into_response();
        assert_eq!(r.status(), 400);
        let body = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
        assert_eq!(&body[..], b"bad request: limit 1001: at most 1000");
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Note {
        #[allow(dead_code)]
        note: String,
    }

    impl JsonBody for Note {
        const LIKE: &'static str = "a note is JSON like {\"note\": \"text\"}";

        fn check(&self) -> Result<(), Error> {
            if self.note == "no" {
                return Err(Error::bad_request("not that note"));
            }
            Ok(())
        }
    }

    #[test]
    fn bodies_say_how_they_should_look() {
        assert!(Body::<Note>::read(br#"{"note": "x"}"#).is_ok());
        let e = Body::<Note>::read(br#"{"not": "x"}"#).err().unwrap();
        assert_eq!(e.kind(), tabiya_service::ErrorKind::BadRequest);
        assert!(
            e.to_string()
                .starts_with("a note is JSON like {\"note\": \"text\"}: unknown field `not`"),
            "{e}"
        );
        let e = Body::<Note>::read(br#"{"note": "no"}"#).err().unwrap();
        assert_eq!(e.to_string(), "not that note");
    }
}
