//! The builder's share of the run's memory budget: charged in chunks as nodes are built,
//! given back when a document is dropped or slimmed, the whole file dropped when over.

use super::{Abort, Builder};
use crate::yaml::types::LoadedFile;

/// Charge the memory budget once this much is pending.
const CHARGE_CHUNK: u64 = 1 << 20;

impl Builder<'_, '_, '_> {
    /// Take `cost` more bytes from the budget (in chunks).
    pub(super) fn charge(&mut self, cost: u64) -> Result<(), Abort> {
        self.doc_cost += cost;
        self.pending += cost;
        if self.pending >= CHARGE_CHUNK {
            self.flush_charge()?;
        }
        Ok(())
    }

    pub(super) fn flush_charge(&mut self) -> Result<(), Abort> {
        if let Some(budget) = &self.limits.budget {
            if !budget.charge(self.pending) {
                return Err(Abort::Budget);
            }
        }
        self.charged += std::mem::take(&mut self.pending);
        Ok(())
    }

    /// Give back `bytes` no longer held (a dropped or slimmed document).
    pub(super) fn uncharge(&mut self, bytes: u64) {
        let from_pending = bytes.min(self.pending);
        self.pending -= from_pending;
        let rest = (bytes - from_pending).min(self.charged);
        self.charged -= rest;
        if let Some(budget) = &self.limits.budget {
            budget.release(rest);
        }
    }

    pub(super) fn drop_over_budget(&mut self) {
        if let Some(budget) = &self.limits.budget {
            budget.release(self.charged);
            self.out = LoadedFile {
                over_budget: Some(budget.limit()),
                ..LoadedFile::default()
            };
            self.comment_floors.clear();
        }
        (self.charged, self.pending) = (0, 0);
    }
}
