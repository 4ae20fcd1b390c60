# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="int32")) -> R.Tensor(dtype="int64", ndim=2):
        with R.dataflow():
            gv: R.Tensor(dtype="int64", ndim=2) = R.nonzero(x)
            R.output(gv)
        return gv
