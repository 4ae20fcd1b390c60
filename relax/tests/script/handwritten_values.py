# Values: constants, prim values, shapes, strings, dtypes, tuples, closures, inner functions,
# symbolic arithmetic and match_cast.
@I.ir_module
class Module:
    @R.function(private=True)
    def lifted(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        z: R.Tensor((3,), "float32") = R.add(x, y)
        return z

    @R.function
    def values(x: R.Tensor(dtype="float32"), k: R.Prim("int64"), cb: R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32"))) -> R.Tuple:
        n, m = T.int64(), T.int64()
        y = R.match_cast(x, R.Tensor((n, m), "float32"))
        s: R.Shape([n * 2, m + 1]) = R.shape([n * 2, m + 1])
        p = n * m + 1
        c0 = R.const(1.5, "float32")
        c1 = R.const(-3, "int64")
        c2 = R.const(True, "bool")
        c3 = R.const([[1.0, 2.0], [3.0, float("inf")]], "float16")
        c4 = R.const(float("-inf"), "float64")
        st = R.str("hello \"quoted\"\n")
        dt = R.dtype("bfloat16")
        tup = R.tuple(y, (s, p), ())
        e = tup[1][0]
        clo = R.make_closure(Module.lifted, (c3,))
        r = R.invoke_closure(clo, (c0,), ty_args=(R.Tensor((3,), "float32"),))
        r2 = R.invoke_pure_closure(cb, [c0], ty_args=R.Tensor((3,), "float32"))

        @R.function
        def inner(a: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            b: R.Tensor((3,), "float32") = R.multiply(a, r)
            return b

        u = inner(r2)
        v = R.prim_value(T.float32(0.5))
        return ()

    @R.function
    def branches(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if c:
            y = R.exp(x)
            if c:
                q = R.exp(y)
            else:
                q = y
            r = R.add(q, x)
        else:
            r = R.multiply(x, x)
        return r

    @R.function
    def main(n: T.int64, x: R.Tensor(("n", 3), "float32")) -> T.int64:
        with R.dataflow():
            lv = R.nn.relu(x)
            gv0 = R.sum(lv, axis=1)
            gv1 = R.permute_dims(lv)
            R.output(gv0, gv1)
        return n * 3 + 1
