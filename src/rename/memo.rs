//! The resolvers' memos: an answer worked out once per key and remembered for the rest of a
//! rename, which asks the same questions of many sites, from several threads.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

/// `memo`'s answer for `key`, else `compute`'s, remembered. The lock is not held while it
/// computes: an answer asks other memos, and this one for other keys. A poisoned lock only
/// costs the memo: the answer is computed.
pub(super) fn remembered<K: Eq + Hash, V: Clone>(
    memo: &Mutex<HashMap<K, V>>,
    key: K,
    compute: impl FnOnce() -> V,
) -> V {
    if let Some(hit) = memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return hit;
    }
    let found = compute();
    if let Ok(mut memo) = memo.lock() {
        memo.insert(key, found.clone());
    }
    found
}
