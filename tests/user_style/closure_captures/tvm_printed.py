# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        # from tvm.script import relax as R
        
        @R.function
        def add_y(a: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
            gv: R.Tensor((3,), dtype="float32") = R.add(a, y)
            return gv

        gv1: R.Tensor((3,), dtype="float32") = R.exp(x)
        gv2: R.Tensor((3,), dtype="float32") = add_y(gv1)
        gv3: R.Tensor((3,), dtype="float32") = add_y(gv2)
        return gv3
