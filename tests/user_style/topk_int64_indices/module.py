from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), "float32")):
        # int64 indices, as the ONNX importer asks for them
        return R.topk(x, k=2, axis=-1, ret_type="both", largest=True, dtype="int64")
