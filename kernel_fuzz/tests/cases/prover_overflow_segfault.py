# i * 2 over 2^63 - 1 iterations: the bound of the index wraps in the prover, the store counts
# as proven in bounds and the unchecked store runs off the buffer: SIGSEGV.
@T.prim_func
def prover_overflow(D: T.Buffer((T.int64(6),), "int64")):
    T.func_attr({"tirx.noalias": True})
    for i in range(T.int64(9223372036854775807)):
        D[i * T.int64(2)] = i
# shapes: [[6]]
# input seed: 1
# expect: out-of-bounds
