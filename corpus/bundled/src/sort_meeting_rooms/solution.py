def min_meeting_rooms(meetings):
    starts = sorted(m[0] for m in meetings)
    ends = sorted(m[1] for m in meetings)
    rooms = 0
    best = 0
    j = 0
    for i in range(len(starts)):
        while j < len(ends) and ends[j] <= starts[i]:
            j += 1
            rooms -= 1
        rooms += 1
        if rooms > best:
            best = rooms
    return best
