def parking_lot(capacity, events):
    parked = set()
    turned_away = 0
    peak = 0
    for kind, car in events:
        if kind == "arrive":
            if car in parked or len(parked) >= capacity:
                turned_away += 1
            else:
                parked.add(car)
                if len(parked) > peak:
                    peak = len(parked)
        elif kind == "leave":
            if car in parked:
                parked.remove(car)
    return turned_away, peak
