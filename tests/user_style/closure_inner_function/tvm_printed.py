# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        # from tvm.script import relax as R
        
        @R.function
        def inner(a: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
            gv: R.Tensor((2, 3), dtype="float32") = R.exp(a)
            gv1: R.Tensor((2, 3), dtype="float32") = R.add(gv, a)
            return gv1

        gv1: R.Tensor((2, 3), dtype="float32") = R.tanh(x)
        q: R.Tensor((2, 3), dtype="float32") = inner(gv1)
        gv3: R.Tensor((2, 3), dtype="float32") = inner(x)
        gv4: R.Tensor((2, 3), dtype="float32") = R.subtract(q, gv3)
        return gv4
