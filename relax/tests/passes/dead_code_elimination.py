# passes: DeadCodeElimination
# Unread dataflow bindings go, chains of them to a fixed point, in branches too, and then
# the private function only a dead binding called (`unused_helper`); match_cast bindings and
# bindings outside dataflow blocks stay.
@I.ir_module
class Module:
    @R.function(private=True)
    def helper(x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        with R.dataflow():
            a = R.exp(x)
            unused = R.add(a, a)
            R.output(a)
        return a

    @R.function(private=True)
    def unused_helper(x: R.Tensor((4, 4), dtype="float32")) -> R.Tensor((4, 4), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor((4, 4), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((4, 4), dtype="float32"):
        cls = Module
        with R.dataflow():
            a = R.exp(x)
            b = R.matmul(a, a)
            d = R.add(b, b)
            e = cls.unused_helper(d)
            m = R.match_cast(x, R.Tensor((4, 4), dtype="float32"))
            y = R.multiply(x, x)
            R.output(y)
        kept = R.add(y, y)
        if c:
            with R.dataflow():
                t = R.exp(y)
                dead = R.sin(t)
                R.output(t)
            r = t
        else:
            r = cls.helper(y)
        return r
