"""Feature cards: a card's I/O-rate limit as a FIFO single server every start of its channels
crosses (its data-rate limit is a link in its channels' routes: kernels/transfer.py).

Per-card accumulators ``cards`` float64[K, N_CARD] (mcio/engine/results_links.py): the starts
measured and the card's busy ms (the start work it served).
"""
CD_STARTS, CD_BUSY_MS = range(2)
N_CARD = 2
