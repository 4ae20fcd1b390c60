# Fuzz seed 571519: gathers nested six deep in a 2-D buffer's index (`A[.., A[.., A[..]]]`).
# Flattening checked each gathered index against its dimension by reading it five times, so
# the tree grew sixfold per level: a million Cranelift instructions, 24 s in the register
# allocator. Each index is now read once, through a `T.Let`.
@T.prim_func
def fuzz_571519(var_A: T.handle, var_B: T.handle):
    T.func_attr({"tirx.noalias": True})
    n0 = T.int32()
    A = T.match_buffer(var_A, (4, n0), "uint8")
    B = T.match_buffer(var_B, (T.int64(6), T.int64(10)), "float32")
    for i0 in range(T.int64(3)):
        for i1 in range(T.int64(8)):
            B[(T.Select(i0 >= T.int64(11), i1, T.Cast("int64", n0)) + T.int64(-2)) % T.int64(6), T.int64(7) % T.int64(10)] = T.float32(-2.5) - T.Cast("float32", A[8 // 5 * 8 % 4, T.Cast("int32", i0) // 8 % n0]) + T.Cast("float32", A[T.min(T.Cast("int32", i1), T.Cast("int32", i1)) // 2 % 4, T.Cast("int32", i0) % n0]) - T.float32(2.25) / T.float32(1.0)
            if T.Cast("int64", A[(T.Cast("int32", i0) + T.Cast("int32", i1) * n0) % 4, T.max(T.min(n0, n0), 2 - T.Cast("int32", i0)) % n0]) >= T.Select(T.Cast("int32", i0) % 4 >= T.Cast("int32", i1), T.Cast("int64", 9), T.max(T.int64(10), i0)):
                A[T.max(T.Cast("int32", i1) % 2, n0) % 4, 8 % n0] = (T.Cast("uint8", i1) - T.uint8(9)) // T.uint8(1)
        B[T.min(i0, T.min(i0, T.int64(-1))) % T.int64(6), i0 % T.int64(10)] = T.float32("inf")
    for i2, i3 in T.grid(n0, n0):
        A[T.max(12 // 4, T.Cast("int32", T.Cast("int64", n0))) % 4, (T.Cast("int32", T.int64(7)) - (i2 - i2)) % n0] = A[1 % 3 // 6 % 4, n0 % n0]
        B[T.int64(11) * T.Cast("int64", i2) // T.int64(4) % T.int64(6), T.min(T.max(T.Cast("int64", i2), T.int64(7)), T.Cast("int64", i2)) % T.int64(10)] = T.float32(-1.75)
    for i4 in range(T.Cast("int64", n0)):
        for i5 in range(n0):
            A[-2 % 4, n0 % n0] = T.Cast("uint8", i4)
        B[T.Cast("int64", A[T.Cast("int32", i4) % 4, T.Div(T.Cast("int32", i4), 5) % n0]) % T.int64(6), T.Cast("int64", n0) % T.int64(10)] = T.max(T.max(T.float32(0.0), T.Cast("float32", A[T.Cast("int32", i4) // 6 % 4, T.Select(T.max(i4, i4) > i4 * i4, T.Cast("int32", i4), T.Cast("int32", i4) * T.Cast("int32", i4)) % n0])) + T.Cast("float32", A[T.truncmod(T.Select(T.Cast("float64", A[T.Cast("int32", i4) % 4, T.Cast("int32", A[T.Div(n0, 7) * T.Select(T.Cast("float32", i4) <= T.Cast("float32", A[T.Cast("int32", i4) % 4, T.min(n0, T.Cast("int32", i4) % 3) % n0]), T.Cast("int32", i4), n0) % 4, T.max(T.Cast("int32", i4), T.Cast("int32", i4)) * T.Div(T.Cast("int32", i4), 1) % n0]) % n0]) < T.Cast("float64", B[T.Div(T.int64(2), T.int64(7)) % T.int64(6), T.max(T.Select(T.Cast("int32", i4) >= T.Cast("int32", i4), T.int64(5), i4), i4 // T.int64(8))]), 7, T.Cast("int32", i4)), 2) % 4, n0 % n0]), B[i4 % T.int64(6), T.Select(T.min(T.Cast("float32", A[T.Cast("int32", i4) % 4, 7 % n0]), T.Cast("float32", A[T.Cast("int32", A[T.Cast("int32", i4) % 4, T.Cast("int32", A[T.Select(T.min(B[i4 % T.int64(6), i4 % T.int64(10)], T.float32(-2.25)) <= T.min(T.Cast("float32", A[T.max(T.max(n0, T.Cast("int32", i4)), T.Cast("int32", i4)) % 4, -2 % n0]), T.Cast("float32", A[T.truncmod(T.max(T.Cast("int32", i4), T.Cast("int32", i4)), 7) % 4, T.Cast("int32", A[T.min(T.Cast("int32", i4) - T.Cast("int32", i4), T.Cast("int32", i4) // 8) % 4, (T.Cast("int32", i4) - T.Cast("int32", i4) - 0) % n0]) % n0])), n0, T.truncmod(-2, 7)) % 4, T.Cast("int32", i4) % n0]) % n0]) % 4, T.Cast("int32", i4) % n0])) > T.Cast("float32", A[(T.Cast("int32", i4) + 2) // 7 % 4, T.truncmod(11 // 2, 6) % n0]), T.Cast("int64", n0), T.Div(i4, T.int64(5))) % T.int64(10)] + T.floor(T.float32(-3.25)))
# shapes: [[4, 5], [6, 10]]
# input seed: 10865607448977718789
# expect: ok
