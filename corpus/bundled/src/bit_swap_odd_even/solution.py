def swap_odd_even_bits(n):
    odd = n & 0xAAAAAAAA
    even = n & 0x55555555
    return (odd >> 1) | (even << 1)
