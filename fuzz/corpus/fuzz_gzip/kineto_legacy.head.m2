6{
"schemaVersion": 1,
"deviceProperties": [{"id": 0, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34084028416, "computeMajor": 7, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 98304, "numSms": 80, "sharedMemPerBlockOptin": 98304}, {"id": 1, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34087305216, "computeMajor": 7, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 98304, "numSms": 80, "sharedMemPerBlockOptin": 98304}, {"id": 2, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34087305216, "computeMajor": 7, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 98304, "numSms": 80, "sharedMemPerBlockOptin": 98304}, {"id": 3, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34087305216, "computeMajor": 7, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 98304, "numSms": 80, "sharedMemPerBlockOptin": 98304}],
"traceEvents": [
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::empty", "pid": 25738, "tid": "25738",
    "ts": 1623142623460111, "dur": 25,
    "args": {
      "Device": 25738, "External id": 2,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[], [], [], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/autograd/profiler.py(611): __init__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/profiler/profiler.py(312): step;resnet50_profiler_api.py(54): <module>", "Input type": ["GenericList", "Int", "", "", "Bool", ""]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::zero_", "pid": 25738, "tid": "25738",
    "ts": 1623142623460147, "dur": 7,
    "args": {
      "Device": 25738, "External id": 3,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[1]], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/autograd/profiler.py(611): __init__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/profiler/profiler.py(312): step;resnet50_profiler_api.py(54): <module>", "Input type": ["float"]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::zeros", "pid": 25738, "tid": "25738",
    "ts": 1623142623460072, "dur": 85,
    "args": {
      "Device": 25738, "External id": 1,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[], [], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/autograd/profiler.py(611): __init__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/profiler/profiler.py(312): step;resnet50_profiler_api.py(54): <module>", "Input type": ["GenericList", "Int", "", "", "Bool"]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::empty", "pid": 25738, "tid": "25738",
    "ts": 1623142623460180, "dur": 11,
    "args": {
      "Device": 25738, "External id": 5,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[], [], [], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/autograd/profiler.py(614): __enter__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/profiler/profiler.py(313): step;resnet50_profiler_api.py(54): <module>", "Input type": ["GenericList", "Int", "", "", "", ""]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::empty", "pid": 25738, "tid": "25738",
    "ts": 1623142623460217, "dur": 9,
    "args": {
      "Device": 25738, "External id": 7,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[], [], [], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/autograd/profiler.py(611): __init__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(518): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["GenericList", "Int", "", "", "Bool", ""]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::zero_", "pid": 25738, "tid": "25738",
    "ts": 1623142623460230, "dur": 5,
    "args": {
      "Device": 25738, "External id": 8,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[1]], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/autograd/profiler.py(611): __init__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(518): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["float"]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::zeros", "pid": 25738, "tid": "25738",
    "ts": 1623142623460209, "dur": 27,
    "args": {
      "Device": 25738, "External id": 6,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[], [], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/autograd/profiler.py(611): __init__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(518): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["GenericList", "Int", "", "", "Bool"]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::empty", "pid": 25738, "tid": "25738",
    "ts": 1623142623460251, "dur": 9,
    "args": {
      "Device": 25738, "External id": 10,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[], [], [], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/autograd/profiler.py(614): __enter__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(518): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["GenericList", "Int", "", "", "", ""]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::view", "pid": 25738, "tid": "25738",
    "ts": 1623142623461142, "dur": 26,
    "args": {
      "Device": 25738, "External id": 11,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[224, 224, 3], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/functional.py(134): to_tensor;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(97): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(60): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/datasets/cifar.py(120): __getitem__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): <listcomp>;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): fetch;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(561): _next_data;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(521): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["unsigned char", "GenericList"], "Fwd thread id": 0, "Sequence number": 890
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::as_strided", "pid": 25738, "tid": "25738",
    "ts": 1623142623461198, "dur": 16,
    "args": {
      "Device": 25738, "External id": 13,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[224, 224, 3], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/functional.py(136): to_tensor;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(97): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(60): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/datasets/cifar.py(120): __getitem__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): <listcomp>;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): fetch;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(561): _next_data;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(521): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["unsigned char", "GenericList", "GenericList", ""]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::permute", "pid": 25738, "tid": "25738",
    "ts": 1623142623461180, "dur": 37,
    "args": {
      "Device": 25738, "External id": 12,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[224, 224, 3], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/functional.py(136): to_tensor;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(97): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(60): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/datasets/cifar.py(120): __getitem__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): <listcomp>;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): fetch;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(561): _next_data;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(521): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["unsigned char", "GenericList"], "Fwd thread id": 0, "Sequence number": 890
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::empty", "pid": 25738, "tid": "25738",
    "ts": 1623142623461252, "dur": 23,
    "args": {
      "Device": 25738, "External id": 16,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[], [], [], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/functional.py(136): to_tensor;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(97): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(60): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/datasets/cifar.py(120): __getitem__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): <listcomp>;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): fetch;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(561): _next_data;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(521): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["GenericList", "Int", "Int", "", "", "Int"]
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::empty_like", "pid": 25738, "tid": "25738",
    "ts": 1623142623461238, "dur": 40,
    "args": {
      "Device": 25738, "External id": 15,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[3, 224, 224], [], [], [], [], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/functional.py(136): to_tensor;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(97): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(60): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/datasets/cifar.py(120): __getitem__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): <listcomp>;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): fetch;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(561): _next_data;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(521): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["unsigned char", "Int", "Int", "", "", "Int"], "Fwd thread id": 0, "Sequence number": 890
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::copy_", "pid": 25738, "tid": "25738",
    "ts": 1623142623461280, "dur": 98,
    "args": {
      "Device": 25738, "External id": 17,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[3, 224, 224], [3, 224, 224], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/functional.py(136): to_tensor;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(97): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(60): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/datasets/cifar.py(120): __getitem__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): <listcomp>;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): fetch;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(561): _next_data;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(521): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["unsigned char", "unsigned char", "Bool"], "Fwd thread id": 0, "Sequence number": 890
    }
  },
{
    "ph": "X", "cat": "Operator", 
    "name": "aten::contiguous", "pid": 25738, "tid": "25738",
    "ts": 1623142623461223, "dur": 158,
    "args": {
      "Device": 25738, "External id": 14,
      "Trace name": "PyTorch Profiler", "Trace iteration": 0 ,
      "Input Dims": [[3, 224, 224], []], "Call stack": "/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/functional.py(136): to_tensor;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(97): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/transforms/transforms.py(60): __call__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torchvision/datasets/cifar.py(120): __getitem__;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): <listcomp>;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/_utils/fetch.py(44): fetch;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(561): _next_data;/home/yangu/anaconda3/envs/kineto/lib/python3.7/site-packages/torch/utils/data/dataloader.py(521): __next__;resnet50_profiler_api.py(42): <module>", "Input type": ["unsigned char", "Int"], "Fwd thread id": 0, "Sequence number": 890
    }
  }
]
}
