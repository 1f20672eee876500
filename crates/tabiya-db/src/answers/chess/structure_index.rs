//! The candidates of a structure search from the structure index.

use tabiya_structure::Query;

use super::search::Candidates;
use crate::Result;
use crate::answers::snapshot::Snapshot;

impl Snapshot<'_> {
    /// The games that may match `query`: every game until the index is read.
    pub(crate) fn structure_candidates(&self, _query: &Query) -> Result<Candidates> {
        Ok(Candidates::All)
    }
}
