package p

func Run() error {
	err := step1()
	if err != nil {
		return err
	}
	err = step2()
	if err != nil {
		return fmt.Errorf("step2: %w", err)
	}
	err = step3()
	if err != nil {
		return err
	}
	return nil
}
