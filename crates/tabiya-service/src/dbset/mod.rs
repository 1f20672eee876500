//! A set of chess databases opened as one (`Db::open_set`): each member a database of its
//! own with its own u32 game ids, the set's answers summed from the members' raw sums
//! ([`explore`]), its game lists merged in the order one database gives ([`games`]), its
//! games named `MEMBER:ID` ([`ids`]).

pub mod explore;
pub mod games;
pub mod ids;
