Š{
"traceEvents": [
{
    "ph": "X", "cat": "cpu_op", "name": "TorchDynamo Cache Lookup", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046213.755, "dur": 22.534,
    "args": {
      "External id": 1,"Record function id": 0, "Ev Idx": 0
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 0/0", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046238.572, "dur": 856.311,
    "args": {
      "External id": 2,"Record function id": 0, "Ev Idx": 1
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "Pregraph bytecode", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046248.667, "dur": 8.873,
    "args": {
      "External id": 3,"Record function id": 0, "Ev Idx": 2
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "AOTDispatcher Runtime Wrapper Prologue", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046272.472, "dur": 6.059,
    "args": {
      "External id": 4,"Record function id": 0, "Ev Idx": 3
    }
  },
{
    "ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph fal4xpiah2v6blbfmwwonu52dvevbsmlh743q5tkclrt4gcqpzea ##", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046294.605, "dur": 790.794,
    "args": {
      "External id": 5,"Record function id": 0, "scope": "user_scope", "Ev Idx": 4
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "triton_red_fused_add_mean_mul_pow_rsqrt_0", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046407.162, "dur": 37.847,
    "args": {
      "External id": 6,"Record function id": 0, "Ev Idx": 5, "Input Dims": [[8, 4096, 2048], [2048], [8, 4096, 2048], [], []], "Input Strides": [[8388608, 2048, 1], [1], [8388608, 2048, 1], [], []], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"], "Concrete Inputs": ["", "", "", "32768", "2048"], "num_warps": 8, "stream": 0, "kernel_backend": "triton", "kernel_name": "triton_red_fused_add_mean_mul_pow_rsqrt_0", "kernel_kwargs": "XBLOCK=2,R0_BLOCK=2048", "num_stages": 1, "kernel_file": "/tmp/torchinductor_root/mw/cmwjlpfu2kb4ehcuvblmjopjzi4rp4n2rtyqnvbbrb4xvqkksyqd.py", "kernel_hash": "cmwjlpfu2kb4ehcuvblmjopjzi4rp4n2rtyqnvbbrb4xvqkksyqd"
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046459.029, "dur": 72.398,
    "args": {
      "External id": 7,"Record function id": 0, "Concrete Inputs": ["", "", ""], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Input Strides": [[2048, 1], [1, 2048], [2048, 1]], "Input Dims": [[32768, 2048], [2048, 2048], [32768, 2048]], "Ev Idx": 6
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046539.128, "dur": 23.685,
    "args": {
      "External id": 8,"Record function id": 0, "Concrete Inputs": ["", "", ""], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Input Strides": [[2048, 1], [1, 2048], [2048, 1]], "Input Dims": [[32768, 2048], [2048, 2048], [32768, 2048]], "Ev Idx": 7
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046576.634, "dur": 37.466,
    "args": {
      "External id": 9,"Record function id": 0, "Concrete Inputs": ["", "", ""], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Input Strides": [[2048, 1], [1, 2048], [2048, 1]], "Input Dims": [[32768, 2048], [2048, 2048], [32768, 2048]], "Ev Idx": 8
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::_scaled_dot_product_flash_attention", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046633.849, "dur": 87.049,
    "args": {
      "External id": 10,"Record function id": 0, "Concrete Inputs": ["", "", "", "0.", "False", "False", "0.088388347648318433"], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar", "Scalar", "Scalar"], "Input Strides": [[8388608, 128, 2048, 1], [8388608, 128, 2048, 1], [8388608, 128, 2048, 1], [], [], [], []], "Input Dims": [[8, 16, 4096, 128], [8, 16, 4096, 128], [8, 16, 4096, 128], [], [], [], []], "Ev Idx": 9
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046643.694, "dur": 12.728,
    "args": {
      "External id": 11,"Record function id": 0, "Concrete Inputs": ["", "1", "2"], "Input type": ["c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[8388608, 128, 2048, 1], [], []], "Input Dims": [[8, 16, 4096, 128], [], []], "Ev Idx": 10
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046654.389, "dur": 1.773,
    "args": {
      "External id": 12,"Record function id": 0, "Concrete Inputs": ["", "[8, 4096, 16, 128]", "[8388608, 2048, 128, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[8388608, 128, 2048, 1], [], [], []], "Input Dims": [[8, 16, 4096, 128], [], [], []], "Ev Idx": 11
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046656.833, "dur": 1.082,
    "args": {
      "External id": 13,"Record function id": 0, "Concrete Inputs": ["", "1", "2"], "Input type": ["c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[8388608, 128, 2048, 1], [], []], "Input Dims": [[8, 16, 4096, 128], [], []], "Ev Idx": 12
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046657.454, "dur": 0.350,
    "args": {
      "External id": 14,"Record function id": 0, "Concrete Inputs": ["", "[8, 4096, 16, 128]", "[8388608, 2048, 128, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[8388608, 128, 2048, 1], [], [], []], "Input Dims": [[8, 16, 4096, 128], [], [], []], "Ev Idx": 13
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046658.225, "dur": 0.841,
    "args": {
      "External id": 15,"Record function id": 0, "Concrete Inputs": ["", "1", "2"], "Input type": ["c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[8388608, 128, 2048, 1], [], []], "Input Dims": [[8, 16, 4096, 128], [], []], "Ev Idx": 14
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046658.756, "dur": 0.210,
    "args": {
      "External id": 16,"Record function id": 0, "Concrete Inputs": ["", "[8, 4096, 16, 128]", "[8388608, 2048, 128, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[8388608, 128, 2048, 1], [], [], []], "Input Dims": [[8, 16, 4096, 128], [], [], []], "Ev Idx": 15
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::_flash_attention_forward", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046665.145, "dur": 51.357,
    "args": {
      "External id": 17,"Record function id": 0, "Concrete Inputs": ["", "", "", "", "", "4096", "4096", "0.", "False", "False", "0.088388347648318433", "", "", "", ""], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", "", "", ""], "Input Strides": [[8388608, 2048, 128, 1], [8388608, 2048, 128, 1], [8388608, 2048, 128, 1], [], [], [], [], [], [], [], [], [], [], [], []], "Input Dims": [[8, 4096, 16, 128], [8, 4096, 16, 128], [8, 4096, 16, 128], [], [], [], [], [], [], [], [], [], [], [], []], "Ev Idx": 16
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty_like", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046673.748, "dur": 10.626,
    "args": {
      "External id": 18,"Record function id": 0, "Concrete Inputs": ["", "", "", "", "", ""], "Input type": ["c10::BFloat16", "", "", "", "", ""], "Input Strides": [[8388608, 2048, 128, 1], [], [], [], [], []], "Input Dims": [[8, 4096, 16, 128], [], [], [], [], []], "Ev Idx": 17
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046679.907, "dur": 4.036,
    "args": {
      "External id": 19,"Record function id": 0, "Concrete Inputs": ["[8, 4096, 16, 128]", "[8388608, 2048, 128, 1]", "15", "0", "", ""], "Input type": ["ScalarList", "ScalarList", "Scalar", "Scalar", "", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 18
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046685.516, "dur": 3.415,
    "args": {
      "External id": 20,"Record function id": 0, "Concrete Inputs": ["[]", "4", "", "", "", ""], "Input type": ["ScalarList", "Scalar", "", "", "", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 19
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046689.492, "dur": 1.131,
    "args": {
      "External id": 21,"Record function id": 0, "Concrete Inputs": ["[]", "4", "", "", "", ""], "Input type": ["ScalarList", "Scalar", "", "", "", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 20
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::permute", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046692.236, "dur": 1.862,
    "args": {
      "External id": 22,"Record function id": 0, "Concrete Inputs": ["", "[0, 2, 1, 3]"], "Input type": ["c10::BFloat16", "ScalarList"], "Input Strides": [[8388608, 2048, 128, 1], []], "Input Dims": [[8, 4096, 16, 128], []], "Ev Idx": 21
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046693.638, "dur": 0.350,
    "args": {
      "External id": 23,"Record function id": 0, "Concrete Inputs": ["", "[8, 16, 4096, 128]", "[8388608, 128, 2048, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[8388608, 2048, 128, 1], [], [], []], "Input Dims": [[8, 4096, 16, 128], [], [], []], "Ev Idx": 22
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::permute", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046694.549, "dur": 1.072,
    "args": {
      "External id": 24,"Record function id": 0, "Concrete Inputs": ["", "[0, 2, 1, 3]"], "Input type": ["c10::BFloat16", "ScalarList"], "Input Strides": [[8388608, 2048, 128, 1], []], "Input Dims": [[8, 4096, 16, 128], []], "Ev Idx": 23
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046695.300, "dur": 0.251,
    "args": {
      "External id": 25,"Record function id": 0, "Concrete Inputs": ["", "[8, 16, 4096, 128]", "[8388608, 128, 2048, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[8388608, 2048, 128, 1], [], [], []], "Input Dims": [[8, 4096, 16, 128], [], [], []], "Ev Idx": 24
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::permute", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046696.021, "dur": 0.861,
    "args": {
      "External id": 26,"Record function id": 0, "Concrete Inputs": ["", "[0, 2, 1, 3]"], "Input type": ["c10::BFloat16", "ScalarList"], "Input Strides": [[8388608, 2048, 128, 1], []], "Input Dims": [[8, 4096, 16, 128], []], "Ev Idx": 25
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046696.602, "dur": 0.210,
    "args": {
      "External id": 27,"Record function id": 0, "Concrete Inputs": ["", "[8, 16, 4096, 128]", "[8388608, 128, 2048, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[8388608, 2048, 128, 1], [], [], []], "Input Dims": [[8, 4096, 16, 128], [], [], []], "Ev Idx": 26
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::permute", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046697.263, "dur": 0.871,
    "args": {
      "External id": 28,"Record function id": 0, "Concrete Inputs": ["", "[0, 2, 1, 3]"], "Input type": ["c10::BFloat16", "ScalarList"], "Input Strides": [[8388608, 2048, 128, 1], []], "Input Dims": [[8, 4096, 16, 128], []], "Ev Idx": 27
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046697.814, "dur": 0.250,
    "args": {
      "External id": 29,"Record function id": 0, "Concrete Inputs": ["", "[8, 16, 4096, 128]", "[8388608, 128, 2048, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[8388608, 2048, 128, 1], [], [], []], "Input Dims": [[8, 4096, 16, 128], [], [], []], "Ev Idx": 28
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046698.815, "dur": 1.252,
    "args": {
      "External id": 30,"Record function id": 0, "Concrete Inputs": ["[128, 4096]", "6", "0", "", "", ""], "Input type": ["ScalarList", "Scalar", "Scalar", "", "", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 29
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046700.538, "dur": 0.731,
    "args": {
      "External id": 31,"Record function id": 0, "Concrete Inputs": ["[0, 0, 0, 0]", "15", "0", "", "", ""], "Input type": ["ScalarList", "Scalar", "Scalar", "", "", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 30
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::view", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046711.835, "dur": 1.382,
    "args": {
      "External id": 32,"Record function id": 0, "Concrete Inputs": ["", "[8, 16, 4096]"], "Input type": ["float", "ScalarList"], "Input Strides": [[4096, 1], []], "Input Dims": [[128, 4096], []], "Ev Idx": 31
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046715.450, "dur": 0.641,
    "args": {
      "External id": 33,"Record function id": 0, "Concrete Inputs": ["[0]", "15", "0", "", "", ""], "Input type": ["ScalarList", "Scalar", "Scalar", "", "", ""], "Input Strides": [[], [], [], [], [], []], "Input Dims": [[], [], [], [], [], []], "Ev Idx": 32
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::transpose", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046717.173, "dur": 1.121,
    "args": {
      "External id": 34,"Record function id": 0, "Concrete Inputs": ["", "1", "2"], "Input type": ["c10::BFloat16", "Scalar", "Scalar"], "Input Strides": [[8388608, 2048, 128, 1], [], []], "Input Dims": [[8, 4096, 16, 128], [], []], "Ev Idx": 33
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::as_strided", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046717.914, "dur": 0.310,
    "args": {
      "External id": 35,"Record function id": 0, "Concrete Inputs": ["", "[8, 16, 4096, 128]", "[8388608, 128, 2048, 1]", ""], "Input type": ["c10::BFloat16", "ScalarList", "ScalarList", ""], "Input Strides": [[8388608, 2048, 128, 1], [], [], []], "Input Dims": [[8, 4096, 16, 128], [], [], []], "Ev Idx": 34
    }
  },
{
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 3182306, "tid": 3182306,
    "ts": 3603029046734.098, "dur": 30.605,
    "args": {
      "External id": 36,"Record function id": 0, "Concrete Inputs": ["", "", ""], "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "Input Strides": [[2048, 1], [1, 2048], [2048, 1]], "Input Dims": [[32768, 2048], [2048, 2048], [32768, 2048]], "Ev Idx": 35
    }
  }
],
"schemaVersion": 1,
"deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, "computeMajor": 9, "computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 131072, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304, "maxSharedMemoryPerMultiProcessor": 65536}],
"trace_id": "88EC7BDF94C14DC2AA22F482F2FC289E",
"hip_driver_version": 70226015,
"record_shapes": 1,
"hip_runtime_version": 70226015,
"roctracer_version": 4.1,
"displayTimeUnit": "ms",
"baseTimeNanoseconds": 1775078550000000000,
"traceName": "/root/repos/TraceLens/examples/../torch_trace_output_claude/triton_repro/trace_tmp.json"
}
