package codeprior

import "math/bits"

// gram is an n-gram's key: its symbol ids packed idBits apiece, the first
// symbol most significant, in 128 bits (orders up to maxOrder). Keys of one
// order sort as their n-grams do, so the n-grams of one context are
// neighbours.
type gram struct{ hi, lo uint64 }

// pack returns the key of ids.
func pack(ids []uint16) gram {
	var g gram
	for _, id := range ids {
		g = g.push(id)
	}
	return g
}

// push appends a symbol.
func (g gram) push(id uint16) gram {
	return gram{hi: g.hi<<idBits | g.lo>>(64-idBits), lo: g.lo<<idBits | uint64(id)}
}

// ctx drops the last symbol: the n-gram's context.
func (g gram) ctx() gram { return gram{hi: g.hi >> idBits, lo: g.lo>>idBits | g.hi<<(64-idBits)} }

// last is the last symbol.
func (g gram) last() uint16 { return uint16(g.lo & (1<<idBits - 1)) }

// suffix keeps the last n symbols.
func (g gram) suffix(n int) gram {
	m := mask(n)
	return gram{hi: g.hi & m.hi, lo: g.lo & m.lo}
}

// fits reports whether g holds no more than n symbols' bits.
func (g gram) fits(n int) bool { return g.suffix(n) == g }

// mask has the low idBits·n bits set.
func mask(n int) gram {
	b := idBits * n
	switch {
	case b >= 128:
		return gram{^uint64(0), ^uint64(0)}
	case b >= 64:
		return gram{hi: 1<<(b-64) - 1, lo: ^uint64(0)}
	}
	return gram{lo: 1<<b - 1}
}

func cmpGram(a, b gram) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// sub is g − b modulo 2^128.
func (g gram) sub(b gram) gram {
	lo, borrow := bits.Sub64(g.lo, b.lo, 0)
	hi, _ := bits.Sub64(g.hi, b.hi, borrow)
	return gram{hi, lo}
}

// add is g + b and whether it overflowed 128 bits.
func (g gram) add(b gram) (gram, bool) {
	lo, carry := bits.Add64(g.lo, b.lo, 0)
	hi, over := bits.Add64(g.hi, b.hi, carry)
	return gram{hi, lo}, over != 0
}
