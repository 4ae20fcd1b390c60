# Not canonical: the other forms TVM 0.27 reads for TIR locals (unannotated `x = e`, `+=`,
# `T.bind` / `T.Bind`, a one-element buffer written and read without an index, as TVM prints
# it for a `(1,)` buffer) and the legacy `with T.LetStmt` block. The printed form is in
# scalar_locals_forms.out.py.
@I.ir_module
class Module:
    @T.prim_func
    def forms(A: T.Buffer((8,), "float32"), B: T.Buffer((1,), "float32")):
        s = T.float32(0)
        k = 3
        for i in range(8):
            x = T.bind(A[i] * T.float32(2))
            y = T.Bind(x + T.float32(1), T.float32)
            s = s + y
            k += 1
        with T.LetStmt(T.float32(0.5)) as h:
            s = s * h
        B = s + T.Cast("float32", k) + B
