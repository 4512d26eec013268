// The sites one dispatch covers, as the host injects them (PART_FIRST,
// PART_SPLIT, PART_GAP, PART_COUNT): the whole lattice on one device, or on
// a rank of a split lattice its interior planes (updated while the halos
// travel) or its two boundary planes (after they arrived). Index i of the
// part, 0 <= i < PART_COUNT, is site part_site(i): PART_SPLIT sites from
// PART_FIRST, then the rest PART_GAP sites further on.
fn part_site(i: u32) -> u32 {
    return PART_FIRST + i + select(0u, PART_GAP, i >= PART_SPLIT);
}
