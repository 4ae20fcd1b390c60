# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor(dtype="int64", ndim=2):
        gv: R.Tensor(dtype="int64", ndim=2) = R.call_pure_packed("relax.run.nonzero", a0, ty_args=(R.Tensor(dtype="int64", ndim=2),))
        return gv
