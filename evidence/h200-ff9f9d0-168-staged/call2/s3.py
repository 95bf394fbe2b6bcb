# Experiment: the 168 kernel's FP32 staged stores in three slots of 6 KB per consumer (two stores in flight).
p='kernels/bf16_wgmma_128x256x64.cu'
s=open(p).read()
def rep(a,b):
    global s
    assert a in s, a
    s=s.replace(a,b)
rep("static constexpr int staging_bytes = staged_stores ? kConsumers * 2 * kStoreSlotBytes<kRingW> : 0;",
    "static constexpr int staging_bytes = staged_stores ? (kRingW == 168 ? 2 * 18432 : kConsumers * 2 * kStoreSlotBytes<kRingW>) : 0;")
rep("unsigned char* box = boxes + (stored++ % 2) * kStoreSlotBytes<kRingW>;",
    "constexpr int kSlots = kRingW == 168 && !kBf16 ? 3 : 2; constexpr int kSlotB = kSlots == 3 ? 6144 : kStoreSlotBytes<kRingW>;\n    unsigned char* box = boxes + (stored++ % kSlots) * kSlotB;")
rep("if (leader) bulk_wait_group_read_all();\n    named_barrier_sync(1 + c, 128);",
    "if (leader) { if constexpr (kSlots == 3) asm volatile(\"cp.async.bulk.wait_group.read 1;\" ::: \"memory\"); else bulk_wait_group_read_all(); }\n    named_barrier_sync(1 + c, 128);")
rep("store_staged<kRingW, true>(a, map_y, staging + c * 2 * kStoreSlotBytes<kRingW>,",
    "store_staged<kRingW, true>(a, map_y, staging + c * (kRingW == 168 ? 18432 : 2 * kStoreSlotBytes<kRingW>),")
rep("store_staged<kRingW, false>(a, map_y, staging + c * 2 * kStoreSlotBytes<kRingW>,",
    "store_staged<kRingW, false>(a, map_y, staging + c * (kRingW == 168 ? 18432 : 2 * kStoreSlotBytes<kRingW>),")
open(p,'w').write(s)
