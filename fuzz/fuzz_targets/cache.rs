//! Arbitrary access sequences on the S3-FIFO policy, checked against a
//! simple model of residency and by the policy's own invariant checker
//! (compiled in with `--cfg fuzzing`): the capacity is never exceeded, an id
//! is resident at most once, and a hit happens exactly when the model says
//! the id is resident.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lidx::cache::s3fifo::Simulator;
use std::collections::HashSet;

fuzz_target!(|data: &[u8]| {
    let Some((&cap, ops)) = data.split_first() else { return };
    let capacity = 1 + cap as usize % 40;
    let mut sim = Simulator::new(capacity, 256);
    let mut resident: HashSet<u32> = HashSet::new();
    for &b in ops {
        let id = b as u32;
        let hit = sim.access(id);
        assert_eq!(hit, resident.contains(&id), "hit disagrees with the model for {id}");
        if !hit {
            for e in sim.last_evicted() {
                assert!(resident.remove(e), "evicted {e}, which was not resident");
            }
            resident.insert(id);
        }
        assert!(resident.len() <= capacity);
        sim.policy.validate(&sim.meta);
    }
});
