# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((6,), dtype="float32")) -> R.Tuple(R.Tensor(dtype="float32", ndim=1), R.Tensor(dtype="int64", ndim=1)):
        gv: R.Tuple(R.Tensor(dtype="float32", ndim=1), R.Tensor(dtype="int64", ndim=1)) = R.call_pure_packed("relax.run.unique", a0, 1, 0, 1, 0, ty_args=(R.Tuple(R.Tensor(dtype="float32", ndim=1), R.Tensor(dtype="int64", ndim=1)),))
        return gv
