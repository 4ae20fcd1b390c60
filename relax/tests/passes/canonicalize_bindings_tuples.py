# passes: CanonicalizeBindings
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")):
        e: R.Tensor((3,), dtype="float32") = R.exp(x)
        t: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = (e, x)
        s: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = t
        a: R.Tensor((3,), dtype="float32") = s[0]
        b: R.Tensor((3,), dtype="float32") = t[1]
        n: R.Tuple(R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")), R.Tensor((3,), dtype="float32")) = (t, a)
        inner: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = n[0]
        f: R.Tensor((3,), dtype="float32") = inner[0]
        if c:
            g: R.Tensor((3,), dtype="float32") = t[0]
            r: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = (g, b)
        else:
            r: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = (b, f)
        h: R.Tensor((3,), dtype="float32") = r[0]
        k: R.Tensor((3,), dtype="float32") = R.add(h, a)
        return (k, b)
