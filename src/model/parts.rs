//! Work cut into parts, one thread each, with results that never depend on the count.

/// `scan` over `items` cut into up to `threads` parts of at least 64, each part on its own
/// thread; the parts' results joined in order, so the result never depends on `threads`.
pub fn in_parts<T: Sync, A: Send, B: Send>(
    items: &[T],
    threads: usize,
    scan: impl Fn(&[T]) -> (Vec<A>, Vec<B>) + Sync,
) -> (Vec<A>, Vec<B>) {
    let parts = threads.min(items.len() / 64).max(1);
    if parts == 1 {
        return scan(items);
    }
    let size = items.len().div_ceil(parts);
    std::thread::scope(|scope| {
        let scan = &scan;
        let rest: Vec<_> = items
            .chunks(size)
            .skip(1)
            .map(|part| scope.spawn(move || scan(part)))
            .collect();
        let (mut a, mut b) = scan(&items[..size]);
        for handle in rest {
            // A panic in a part is the caller's, as it would be on one thread.
            let (more_a, more_b) = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            a.extend(more_a);
            b.extend(more_b);
        }
        (a, b)
    })
}
